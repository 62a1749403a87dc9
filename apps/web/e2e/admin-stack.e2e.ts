/**
 * The admin area on the whole product (issue 26), as `npm start` runs it: the demo admin finds the
 * demo customer by e-mail, blocks them (their next API call is refused and their proxy stops within
 * 5 seconds), unblocks, changes their password, revokes and grants DEPOSIT, changes the balance with
 * a reason, looks up a lease from pasted text and credits it once it has ended, looks up the crypto
 * transactions and deep checks, lists payments with traffic over 100 MB highlighted, and finds every
 * action in Audit. A customer sees ACCESS DENIED and every admin call answers 403.
 * Issue 36 item 5: staff reach /bigadmin from the user menu; every change needs a reason and the
 * audit keeps it, read as e-mails and readable changes; block, balance, password, refund and credit
 * confirm first and Cancel changes nothing; a failed search leaves no user to act on.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS, type Endpoint, type TAgent, type TLease, type TPricingRules } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { type LoopbackPage, startLoopbackPage } from './support/loopback.ts';
import { stackSuite } from './support/stackSuite.ts';
import {
  type CallArgs,
  openStackVisit,
  signInOnStack,
  stackApi,
  stackApiWithToken,
  waitUntil,
} from './support/stackVisit.ts';

const run = promisify(execFile);
const PAGE_TEXT = 'hello through the customer proxy';

let browser: Browser;
let stack: TestStack;
let target: LoopbackPage;

stackSuite(
  {
    label: 'web_e2e_admin',
    network: { agentCount: 6 },
    paymentsWatchIntervalSeconds: 2,
  },
  (s, b) => {
    stack = s;
    browser = b;
  },
  {
    first: async () => {
      target = await startLoopbackPage(PAGE_TEXT);
    },
    last: () => target?.close(),
  },
);

async function curlThrough(lease: TLease): Promise<boolean> {
  const { user, pwd, ip, ports } = lease.socks;
  const proxy = `socks5h://${user}:${pwd}@${ip}:${ports[0]}`;
  try {
    const { stdout } = await run('curl', ['-sS', '--max-time', '3', '--proxy', proxy, target.url]);
    return stdout.includes(PAGE_TEXT);
  } catch {
    return false;
  }
}

async function tab(page: Page, name: string) {
  await page.getByRole('tab', { name }).click();
}

/** The shop's rule matching: the first rule whose conditions all hold prices the agent. */
function ruleMatches(r: TPricingRules['rules'][number], a: TAgent): boolean {
  return (
    (r.cc === null || r.cc === a.loc.cc) &&
    (r.conn === null || r.conn === a.conn) &&
    a.stars >= r.minStars &&
    a.stars <= r.maxStars &&
    (r.fresh === null || r.fresh === !a.leases.worn)
  );
}

/** The confirmation dialog names `who` and `what`; Cancel closes it, Confirm runs the change. */
async function confirmChange(page: Page, answer: 'cancel' | 'ok', ...mustSay: string[]): Promise<void> {
  const text = (await page.getByTestId('admin-confirm-text').textContent()) ?? '';
  for (const m of mustSay) assert.ok(text.includes(m), `the confirmation says "${m}": ${text}`);
  await page.getByTestId(`admin-confirm-${answer}`).click();
  await page.getByTestId('admin-confirm-text').waitFor({ state: 'hidden' });
}

/** Opens the user menu (desktop) or side menu (phone) and says whether it has the Admin entry. */
async function menuHasAdmin(page: Page, phone: boolean): Promise<boolean> {
  await page.getByRole('button', { name: phone ? 'Open menu' : 'Account menu' }).click();
  const menu = phone ? page.getByTestId('side-menu') : page.getByRole('menu');
  await menu.getByText('Change Password').waitFor();
  const has = (await menu.getByText('Admin', { exact: true }).count()) > 0;
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'hidden' });
  return has;
}

async function noHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page overflows by ${overflow} px`);
}

describe('admin area on the real stack (issue 26)', () => {
  it('staff walk every admin action, and each one is in Audit', { timeout: 240_000 }, async () => {
    const customer = { ...stack.demo.customer };
    const customerApi = <E extends Endpoint>(e: E, ...call: CallArgs<E>) =>
      stackApi(stack, customer, e, ...call);
    const balanceC = async () => (await customerApi(ENDPOINTS.getMyAccount)).ok().balanceC;

    // The customer's running lease (bought through the API) and a paid crypto charge.
    const list = (
      await customerApi(ENDPOINTS.listAgents, { query: { cursor: 0, limit: 50, leases: 'none' } })
    ).ok();
    const agent = list.agents.find((a) => a.online);
    assert.ok(agent, 'an online unleased agent');
    const bought = await customerApi(ENDPOINTS.createLease, {
      body: { agentID: agent.id, expPriceC: agent.priceExcC, exc: true },
    });
    const lease = bought.ok();
    await waitUntil(() => curlThrough(lease), 'the lease carries traffic', 10_000);
    const me = (await customerApi(ENDPOINTS.getMyAccount)).ok();
    const charge = (await customerApi(ENDPOINTS.createCharge, { body: { amount: 500, type: 'ltc' } })).ok();
    const txid = stack.chain.pay('ltc', charge.address, charge.amount);

    const v = await openStackVisit(browser, stack, { viewport: DESKTOP });
    const { page } = v;
    try {
      // Staff reach the admin area from the user menu.
      await signInOnStack(v, stack, stack.demo.admin, '/my');
      assert.ok(await menuHasAdmin(page, false), 'staff see Admin in the user menu');
      await page.getByRole('button', { name: 'Account menu' }).click();
      await page.getByRole('menu').getByText('Admin', { exact: true }).click();
      await page.waitForURL(/\/bigadmin$/);
      await page.getByRole('tab', { name: 'User Info' }).waitFor();
      // Actions stay disabled until a user is loaded.
      assert.equal(await page.getByTestId('admin-block').isDisabled(), true);

      await page.getByTestId('admin-email').fill(customer.email);
      await page.getByRole('button', { name: 'Find by e-mail' }).click();
      await page.getByTestId('admin-user-details').waitFor();
      assert.match((await page.getByTestId('admin-user-details').textContent()) ?? '', new RegExp(me.userID));
      await saveScreenshot(page, 'admin-user-info-1280');

      // Block: the customer's token is refused and the proxy stops within 5 seconds.
      const tokenBefore = await stack.token(customer.email, customer.password);
      assert.equal(await page.getByTestId('admin-block').isDisabled(), true, 'no reason, no block');
      await page.getByTestId('admin-reason').fill('chargeback investigation');
      // Cancel changes nothing.
      await page.getByTestId('admin-block').click();
      await confirmChange(page, 'cancel', customer.email, 'Block', 'chargeback investigation');
      await page.waitForTimeout(500); // sleeps: a cancelled block must change nothing; absence needs a window
      assert.equal(await page.getByTestId('admin-blocked-state').textContent(), 'Active');
      const still = await stackApiWithToken(stack, tokenBefore, ENDPOINTS.getMyAccount);
      assert.equal(still.status, 200, 'a cancelled block blocks nobody');
      await page.getByTestId('admin-block').click();
      const blockedAt = Date.now();
      await confirmChange(page, 'ok', customer.email);
      await page.getByTestId('admin-blocked-state').getByText('Blocked').waitFor();
      await waitUntil(
        async () => {
          const res = await stackApiWithToken(stack, tokenBefore, ENDPOINTS.getMyAccount);
          return res.status === 401 || res.status === 403;
        },
        "the blocked customer's next call is refused",
        5_000,
      );
      await waitUntil(async () => !(await curlThrough(lease)), "the blocked customer's proxy stops", 5_000);
      assert.ok(Date.now() - blockedAt < 6_000, 'both within seconds');

      await page.getByTestId('admin-block').click();
      await confirmChange(page, 'ok', 'Unblock', customer.email);
      await page.getByTestId('admin-blocked-state').getByText('Active').waitFor();
      await waitUntil(() => curlThrough(lease), 'the proxy works again after unblock', 10_000);

      // Password change: the customer signs in with the new one.
      const newPassword = 'Support-set password 42!';
      await page.getByTestId('admin-password').fill(newPassword);
      await page.getByTestId('admin-change-password').click();
      await confirmChange(page, 'cancel', customer.email, 'password');
      assert.ok(await stack.token(customer.email, customer.password), 'a cancelled change keeps the old one');
      await page.getByTestId('admin-change-password').click();
      await confirmChange(page, 'ok');
      await page.getByTestId('admin-done').getByText('Password changed').waitFor();
      customer.password = newPassword;
      assert.ok(await stack.token(customer.email, customer.password));

      // The preferred way: a reset link mailed to the customer.
      await page.getByTestId('admin-reset-link').click();
      await page.getByTestId('admin-done').getByText('Reset link mailed').waitFor();
      await stack.mail.waitFor(customer.email, (m) => /reset-password\?token=/.test(m.text));

      // DEPOSIT: revoke, then grant.
      await page.getByTestId('admin-revoke-deposit').click();
      await page.getByTestId('admin-done').getByText('DEPOSIT revoked').waitFor();
      await page.getByTestId('admin-grant-deposit').click();
      await page.getByTestId('admin-done').getByText('DEPOSIT granted').waitFor();

      // Balance change in cents with a reason; zero is ignored.
      await tab(page, 'User Balance');
      await page.getByTestId('admin-balance-delta').fill('0');
      await page.getByTestId('admin-balance-reason').fill('goodwill for the outage');
      assert.equal(await page.getByTestId('admin-balance-apply').isDisabled(), true, 'zero is ignored');
      const before = await balanceC();
      await page.getByTestId('admin-balance-delta').fill('250');
      await page.getByTestId('admin-balance-apply').click();
      const usd = (c: number) => `$${(c / 100).toFixed(2)}`;
      await confirmChange(page, 'cancel', customer.email, `${usd(before)} -> ${usd(before + 250)}`);
      assert.equal(await balanceC(), before);
      await page.getByTestId('admin-balance-apply').click();
      await confirmChange(page, 'ok');
      await page.getByTestId('admin-balance-done').waitFor();
      assert.equal(await balanceC(), before + 250);

      // Lease Info: pasted text, credit refused while running, allowed once ended.
      await tab(page, 'Lease Info');
      await page
        .getByTestId('admin-lease-search')
        .fill(`please refund Lease ${lease.id.toUpperCase()} (private)`);
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByTestId('admin-lease-details').waitFor();
      assert.equal(
        await page.getByTestId('admin-credit-lease').isDisabled(),
        true,
        'a running lease is not credited',
      );
      // Rules §6's refund: needs a reason, confirms with the amount; a healthy proxy is not refunded.
      const price = `$${(lease.purchasePriceC / 100).toFixed(2)}`;
      assert.equal(await page.getByTestId('admin-refund-lease').isDisabled(), true, 'no reason, no refund');
      await page.getByTestId('admin-credit-reason').fill('customer says it is slow');
      const beforeRefund = await balanceC();
      await page.getByTestId('admin-refund-lease').click();
      await confirmChange(page, 'cancel', price, lease.id, 'customer says it is slow');
      await page.getByTestId('admin-refund-lease').click();
      await confirmChange(page, 'ok');
      await page.getByTestId('admin-error').waitFor();
      assert.equal(await balanceC(), beforeRefund);
      assert.ok(await curlThrough(lease), 'the refused refund leaves the lease running');
      await saveScreenshot(page, 'admin-lease-refund-refused-1280');

      await stack.endLease(lease.id, { trafficBytes: 150 * 1024 * 1024 });
      await page.getByRole('button', { name: 'Look up' }).click();
      await page.getByTestId('admin-credit-lease').and(page.locator(':not([disabled])')).waitFor();
      assert.equal(await page.getByTestId('admin-refund-lease').isDisabled(), true, 'an ended lease');
      await page.getByTestId('admin-credit-reason').fill('');
      assert.equal(await page.getByTestId('admin-credit-lease').isDisabled(), true, 'no reason, no credit');
      const beforeCredit = await balanceC();
      await page.getByTestId('admin-credit-reason').fill('proxy dead for most of the day');
      await page.getByTestId('admin-credit-lease').click();
      await confirmChange(page, 'cancel', price, 'proxy dead for most of the day');
      assert.equal(await balanceC(), beforeCredit);
      await page.getByTestId('admin-credit-lease').click();
      await confirmChange(page, 'ok');
      await page.getByTestId('admin-credit-done').waitFor();
      assert.equal(await balanceC(), beforeCredit + lease.purchasePriceC);
      await page.getByTestId('admin-load-ports').click();
      await page.getByText('No ports').waitFor();
      await saveScreenshot(page, 'admin-lease-info-1280');

      // Transaction Info: the paid charge's transaction and a deep check of it.
      await tab(page, 'Transaction Info');
      await waitUntil(
        async () => {
          await page.getByTestId('admin-load-crypto').click();
          return (await page
            .getByTestId('admin-crypto-row')
            .first()
            .waitFor({ timeout: 300 })
            .then(() => true)
            .catch(() => false)) as boolean;
        },
        'the crypto transaction is listed',
        30_000,
      );
      await page.getByTestId('admin-deep-txid').fill(txid);
      await page.getByTestId('admin-deep-uid').fill(charge.uid);
      await page.getByTestId('admin-deep-check').click();
      await page
        .getByTestId('admin-deep-result')
        .getByText(/1 charge/)
        .waitFor();

      // User Payments: the ended lease's purchase row is highlighted (150 MB > 100 MB).
      await tab(page, 'User Payments');
      const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
      const last = page.getByTestId('admin-pay-last');
      const lastBefore = await last.inputValue();
      await last.fill(future);
      assert.equal(await last.inputValue(), lastBefore, 'a future day is refused');
      await page.getByTestId('admin-load-payments').click();
      await page.getByTestId('admin-payment-row').first().waitFor();
      const heavy = page.locator('[data-testid="admin-payment-row"][data-heavy="true"]');
      assert.ok((await heavy.count()) >= 1, 'the heavy lease is highlighted');
      assert.match((await heavy.first().textContent()) ?? '', new RegExp(lease.id));
      await saveScreenshot(page, 'admin-payments-1280');

      // Audit: every action above, with who did it.
      await tab(page, 'Audit');
      await page.getByTestId('admin-load-audit').click();
      await page.getByTestId('admin-audit-row').first().waitFor();
      const actions = await page
        .getByTestId('admin-audit-row')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
      for (const a of [
        'user.block',
        'user.unblock',
        'user.password',
        'user.resetLink',
        'account.permissions',
        'account.balance',
        'lease.credit',
      ]) {
        assert.ok(actions.includes(a), `${a} in the audit list (${actions.join(', ')})`);
      }
      // Every staff change kept its reason; people read as e-mails; changes as words, not JSON.
      const rows = await page.getByTestId('admin-audit-row').evaluateAll((trs) =>
        trs.map((tr) => ({
          action: tr.getAttribute('data-action'),
          cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
        })),
      );
      for (const r of rows.filter((x) => /^(user|account|lease)\./.test(x.action ?? ''))) {
        const [, staff, , target, change, reason] = r.cells;
        assert.ok(reason?.trim(), `${r.action} kept a reason: ${r.cells.join(' | ')}`);
        assert.equal(staff, stack.demo.admin.email, `${r.action} names the staff member`);
        if (!r.action?.startsWith('lease.')) assert.equal(target, customer.email);
        assert.ok(!/[{}"]/.test(change ?? ''), `${r.action} reads as words: ${change}`);
      }
      const changeOf = (a: string) => rows.filter((r) => r.action === a).map((r) => r.cells[4]);
      assert.ok(changeOf('user.block').includes('blocked: no -> yes'), changeOf('user.block').join());
      assert.ok(changeOf('account.permissions').includes('permissions: + DEPOSIT'));
      assert.ok(changeOf('account.permissions').includes('permissions: - DEPOSIT'));
      assert.ok(changeOf('account.balance').some((c) => /^balance \$[\d.]+ -> \$[\d.]+$/.test(c ?? '')));
      const fits = await page
        .getByTestId('admin-audit-row')
        .first()
        .evaluate((tr) => {
          const box = tr.closest('table')?.parentElement;
          return box ? box.scrollWidth <= box.clientWidth : false;
        });
      assert.ok(fits, 'at 1280 px the audit table shows every column, long ids wrapped');
      await saveScreenshot(page, 'admin-audit-1280');

      // A failed search drops the loaded user: nothing left to block.
      await tab(page, 'User Info');
      await page.getByTestId('admin-email').fill('nobody-here@example.com');
      await page.getByRole('button', { name: 'Find by e-mail' }).click();
      await page.getByTestId('admin-find-error').getByText('User not found').waitFor();
      assert.equal(await page.getByTestId('admin-user-details').count(), 0, 'the first user is gone');
      for (const id of ['admin-block', 'admin-grant-deposit', 'admin-revoke-deposit', 'admin-reset-link']) {
        assert.equal(await page.getByTestId(id).isDisabled(), true, `${id} disabled after a failed search`);
      }
      await saveScreenshot(page, 'admin-user-not-found-1280');

      // At 390 px the area stays usable, with no horizontal overflow; Admin is in the side menu.
      await page.setViewportSize(PHONE);
      assert.ok(await menuHasAdmin(page, true), 'staff see Admin in the side menu');
      for (const name of [
        'Audit',
        'User Payments',
        'Transaction Info',
        'Lease Info',
        'User Balance',
        'User Info',
      ]) {
        await tab(page, name);
        await noHorizontalOverflow(page);
        if (name === 'Audit') {
          await page.getByTestId('admin-load-audit').click();
          await page.getByTestId('admin-audit-row').first().waitFor();
          await noHorizontalOverflow(page);
          await saveScreenshot(page, 'admin-audit-390');
        }
      }
      await saveScreenshot(page, 'admin-user-info-390');
    } finally {
      await v.context.close();
    }
  });

  it('staff change a lease price in Pricing and the shop sells at it', { timeout: 180_000 }, async () => {
    // The demo customer's password was changed above: a shopper of its own.
    const customer = { email: 'price-shopper@example.com', password: 'Price shopper pw 123!' };
    await stack.addCustomer(customer.email, customer.password);
    const list = (
      await stackApi(stack, customer, ENDPOINTS.listAgents, { query: { cursor: 0, limit: 50 } })
    ).ok();
    const agent = list.agents[0];
    assert.ok(agent, 'an agent in the shop');
    const before = (await stackApi(stack, stack.demo.admin, ENDPOINTS.getPricingRules)).ok();
    const row = before.rules.findIndex((r) => ruleMatches(r, agent));
    const rule = before.rules[row];
    assert.ok(rule, 'a rule prices the agent');
    assert.equal(agent.priceExcC, rule.priceExcC);
    const newPriceC = rule.priceExcC + 111;
    const shopPrice = async () =>
      (await stackApi(stack, customer, ENDPOINTS.getAgent, { params: { id: agent.id } })).ok().priceExcC;

    const v = await openStackVisit(browser, stack, { viewport: DESKTOP });
    const { page } = v;
    try {
      await signInOnStack(v, stack, stack.demo.admin, '/bigadmin');
      await tab(page, 'Pricing');
      const price = page.getByTestId(`pricing-rule-${row}-priceExc`);
      await price.waitFor();
      assert.equal(await price.inputValue(), (rule.priceExcC / 100).toFixed(2));
      await page.getByTestId('pricing-ports-box').waitFor();
      const box = await page
        .getByTestId('pricing-rules-box')
        .evaluate((el) => ({ width: el.clientWidth, inner: el.scrollWidth }));
      assert.ok(box.width <= 620, `the price table box is ${box.width} px wide`);
      // At 1280 px every column is in view: nothing scrolls inside the box.
      assert.ok(box.inner <= box.width, `the rules table is ${box.inner} px in a ${box.width} px box`);

      await price.fill((newPriceC / 100).toFixed(2));
      await page.getByTestId('pricing-rules-save').click();
      await page.getByText('Lease prices saved').waitFor();
      await waitUntil(
        async () => (await shopPrice()) === newPriceC,
        'the shop sells at the new price',
        10_000,
      );
      await page.getByTestId('pricing-saved-by').first().getByText(`by ${stack.demo.admin.email}`).waitFor();
      await saveScreenshot(page, 'admin-pricing-1280');

      // A cell that is not a number names its row; a shared price above the private one is the server's 400.
      const shared = page.getByTestId(`pricing-rule-${row}-priceShr`);
      await shared.fill('abc');
      await page.getByTestId('pricing-rules-save').click();
      await page
        .getByTestId('pricing-rules-error')
        .getByText(`Row ${row + 1}: the shared price`)
        .waitFor();
      await shared.fill(((newPriceC + 100) / 100).toFixed(2));
      await page.getByTestId('pricing-rules-save').click();
      await page
        .getByTestId('pricing-rules-error')
        .getByText(/must not exceed priceExcC/)
        .waitFor();
      assert.equal(await shopPrice(), newPriceC);

      await page.setViewportSize(PHONE);
      await noHorizontalOverflow(page);
      const scrolls = await page
        .getByTestId('pricing-rules-box')
        .evaluate((el) => el.scrollWidth > el.clientWidth);
      assert.ok(scrolls, 'the rules table scrolls inside its box at 390 px');
      await saveScreenshot(page, 'admin-pricing-390');
    } finally {
      await v.context.close();
    }
  });

  it('a customer sees ACCESS DENIED and every admin call answers 403', { timeout: 120_000 }, async () => {
    const customer = { email: 'plain-customer@example.com', password: 'Plain customer pw 123!' };
    const customerId = await stack.addCustomer(customer.email, customer.password);
    const v = await openStackVisit(browser, stack, { viewport: PHONE });
    try {
      await signInOnStack(v, stack, customer, '/bigadmin');
      await v.page.getByTestId('access-denied').waitFor();
      assert.equal(await menuHasAdmin(v.page, true), false, 'a customer has no Admin entry');
      await v.page.setViewportSize(DESKTOP);
      assert.equal(await menuHasAdmin(v.page, false), false, 'nor in the desktop user menu');
      await v.page.setViewportSize(PHONE);
      await saveScreenshot(v.page, 'admin-access-denied-390');
    } finally {
      await v.context.close();
    }
    const token = await stack.token(customer.email, customer.password);
    const id = customerId;
    const email = customer.email;
    // Each staff operation, as the contract declares it, called with a customer's token.
    const calls = [
      () => stackApiWithToken(stack, token, ENDPOINTS.getAccount, { params: { id } }),
      () =>
        stackApiWithToken(stack, token, ENDPOINTS.updateAccount, {
          params: { id },
          body: { balanceDeltaC: 100, reason: 'e2e' },
        }),
      () => stackApiWithToken(stack, token, ENDPOINTS.getAdminLease, { params: { id: 'abcd-1234' } }),
      () => stackApiWithToken(stack, token, ENDPOINTS.findAdminLeases, { query: { uid: id } }),
      () =>
        stackApiWithToken(stack, token, ENDPOINTS.creditLease, {
          params: { id: 'abcd-1234' },
          body: { reason: 'e2e' },
        }),
      () =>
        stackApiWithToken(stack, token, ENDPOINTS.listTxRecords, {
          query: { uid: id, offset: 0, limit: 1000 },
        }),
      () => stackApiWithToken(stack, token, ENDPOINTS.listCryptoTransactions, { query: { user_id: id } }),
      () => stackApiWithToken(stack, token, ENDPOINTS.deepCheckPayments, { body: { user_id: id } }),
      () => stackApiWithToken(stack, token, ENDPOINTS.listHeldCredits),
      () => stackApiWithToken(stack, token, ENDPOINTS.listAuditEntries),
      () => stackApiWithToken(stack, token, ENDPOINTS.getUserInfo, { body: { email } }),
      () => stackApiWithToken(stack, token, ENDPOINTS.blockUser, { body: { email, blocked: true } }),
      () =>
        stackApiWithToken(stack, token, ENDPOINTS.setUserPassword, {
          body: { email, password: 'x'.repeat(16) },
        }),
      () => stackApiWithToken(stack, token, ENDPOINTS.mailUserResetLink, { body: { email } }),
    ];
    for (const [i, call] of calls.entries()) assert.equal((await call()).status, 403, `staff call ${i}`);
  });
});
