/**
 * Crypto top-ups on the whole product (startStack: PostgreSQL, identity, API with its job workers, web
 * listener, the devnet chain simulator and ticker): the demo customer adds $20 in LTC, pays the charge
 * page's address through the simulator and sees it paid within one poll, with the credit on the
 * balance and the Payments page; a customer who signed up with the demo customer's invite link does
 * the same on a phone and the demo customer's Payments and Referral pages show the 10% reward.
 *
 * The stack's watcher runs every 2 s, so a mined payment is credited in seconds; the pages' clocks are
 * Playwright's, so the charge page's 30 s poll is one `runFor` away once the server has credited.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHARGE_POLL_MS, ENDPOINTS, type Endpoint, type TChargePage } from '@pm/contracts';
import { startStack, type TestStack } from '@pm/devnet/stack';
import { waitFor } from '@pm/testkit';
import type { Browser } from 'playwright-core';
import { AddFundsDialog } from './pages/AddFundsDialog.ts';
import type { ChargePage } from './pages/ChargePage.ts';
import { PaymentsPage } from './pages/PaymentsPage.ts';
import { ShellPage, TIMEOUT_MS } from './pages/ShellPage.ts';
import { DESKTOP, launchBrowser, PHONE, saveScreenshot } from './support/browser.ts';
import {
  type CallArgs,
  openStackVisit,
  type StackVisit,
  signInOnStack,
  stackApiWithToken,
} from './support/stackVisit.ts';

const WATCH_INTERVAL_S = 2;
/** The ticker's demo price of a litecoin. */
const LTC_RATE = '$84.00 per LTC';
/** $20 at $84.00, rounded up to the litoshi. */
const LTC_FOR_20_USD = '0.23809524';
const INVITED_EMAIL = 'invited.customer@example.com';

let browser: Browser;
let stack: TestStack;

before(async () => {
  stack = await startStack({ label: 'web_e2e_payments', paymentsWatchIntervalSeconds: WATCH_INTERVAL_S });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

interface Visit extends StackVisit {
  /** The bearer token of the visit's latest API call. */
  bearer(): string;
}

/** A browser context with the Terms accepted and Playwright's clock (flowing with real time until told). */
async function newVisit(viewport = DESKTOP): Promise<Visit> {
  const v = await openStackVisit(browser, stack, { viewport, clock: true });
  let bearer = '';
  v.context.on('request', (r) => {
    const auth = r.headers().authorization;
    if (auth && r.url().startsWith(stack.apiUrl)) bearer = auth;
  });
  return {
    ...v,
    bearer: () => {
      assert.ok(bearer, 'the app has called the API with a token');
      return bearer;
    },
  };
}

/** Opens the app at `path`, signs in on the identity pages and waits for the shell. */
const signIn = (v: Visit, email: string, password: string, path = '/') =>
  signInOnStack(v, stack, { email, password }, path);

/** An operation's success answer, called from the test with a visit's `Bearer …` header. */
async function api<E extends Endpoint>(bearer: string, e: E, ...call: CallArgs<E>) {
  return (await stackApiWithToken(stack, bearer.replace(/^Bearer\s+/i, ''), e, ...call)).ok();
}

/** Waits (bounded) until the watcher has credited the charge: the server says paid. */
async function waitUntilCredited(bearer: string, code: string): Promise<TChargePage> {
  return waitFor(
    async () => {
      const charge = await api(bearer, ENDPOINTS.getChargePage, { params: { code } });
      return charge.status === 'paid' && charge;
    },
    { timeoutMs: TIMEOUT_MS, intervalMs: 250, what: `charge ${code} paid on the server` },
  );
}

/**
 * Pays the charge page's amount to its address through the simulator (mining 6 blocks), waits for the
 * watcher to credit it, then lets the page's clock run one poll interval: the page must say paid after
 * that one poll.
 */
async function payAndSeePaidWithinOnePoll(charge: ChargePage, bearer: string): Promise<TChargePage> {
  const address = (await charge.address.textContent()) ?? '';
  const amount = ((await charge.amount.textContent()) ?? '').split(' ')[0] ?? '';
  let polls = 0;
  charge.page.on('request', (r) => {
    if (r.method() === 'POST' && r.url() === `${stack.apiUrl}/crypto/check`) polls++;
  });
  stack.chain.pay('ltc', address, amount);
  const credited = await waitUntilCredited(bearer, charge.code);
  // Normally the page has not asked since it opened; on a slow machine its own 30 s poll may have
  // come first, which must have been the one that found it paid.
  const pollsBefore = polls;
  if ((await charge.statusCode()) !== 'paid') await charge.page.clock.runFor(CHARGE_POLL_MS);
  await charge.waitForStatus('paid', 5_000);
  assert.ok(polls - pollsBefore <= 1, `paid after one poll, not ${polls - pollsBefore}`);
  assert.equal(await charge.statusLabel(), 'Paid');
  return credited;
}

describe('crypto top-ups on the whole product', () => {
  it('the demo customer adds $20 in LTC, pays through the simulator and sees it paid, on the balance and on Payments', async () => {
    const v = await newVisit();
    try {
      await signIn(v, stack.demo.customer.email, stack.demo.customer.password);
      await v.shell.waitForBalance('$50.00');
      await v.page.getByRole('button', { name: 'Balance: add funds' }).click();
      const form = AddFundsDialog.dialog(v.page);
      await form.waitForForm();
      const charge = await form.addFunds(v.context, '20', 'LTC');

      // The charge page: a fresh litecoin address, the exact amount at the locked rate, the QR code.
      assert.equal(await charge.statusLabel(), 'No payments');
      const address = (await charge.address.textContent()) ?? '';
      assert.match(address, /^ltc1q[02-9ac-hj-np-z]{38}$/, 'a BIP84 litecoin address');
      assert.equal(await charge.amount.textContent(), `${LTC_FOR_20_USD} LTC`);
      assert.equal(await charge.usdAmount.textContent(), '$20.00');
      assert.equal(await charge.detail('Exchange rate'), LTC_RATE);
      assert.deepEqual(await charge.qrValue(), {
        value: `litecoin:${address}?amount=${LTC_FOR_20_USD}`,
        hasSvg: true,
      });
      await saveScreenshot(charge.page, 'stack-charge-page');

      const credited = await payAndSeePaidWithinOnePoll(charge, v.bearer());
      assert.equal(credited.creditedUsd, 2000);
      assert.equal(await charge.detail('Received'), `${LTC_FOR_20_USD} LTC`);
      assert.equal(await charge.page.getByTestId('charge-credited').textContent(), '$20.00');
      // Paid: the page reloads the balance at once.
      await new ShellPage(charge.page).waitForBalance('$70.00');
      await saveScreenshot(charge.page, 'stack-charge-paid');

      await charge.page.getByRole('tab', { name: 'Payments' }).click();
      const payments = new PaymentsPage(charge.page);
      await payments.rows.filter({ hasText: 'Deposit' }).first().waitFor();
      const [time, type, memo, amount, balance] = (await payments.rowTexts())[0] ?? [];
      assert.ok(time, 'a time');
      assert.equal(type, 'Deposit');
      assert.match(memo ?? '', /^0\.23809524 LTC deposit, tx [0-9a-f]{12}…$/);
      assert.equal(amount, '+$20.00');
      assert.equal(balance, '$70.00');
      await saveScreenshot(charge.page, 'stack-payments-deposit');
    } finally {
      await v.context.close();
    }
  });

  it("a customer invited with the demo customer's link tops up $20 in LTC on a phone; the referrer gets 10%", async () => {
    const referrer = await newVisit();
    const admin = await newVisit();
    const invited = await newVisit(PHONE);
    try {
      await signIn(referrer, stack.demo.customer.email, stack.demo.customer.password, '/referral');
      const inviteLink = (await referrer.page.getByTestId('invite-link').textContent()) ?? '';
      assert.match(inviteLink, new RegExp(`^${stack.issuer}/signup\\?ref=[A-Z0-9]+$`));
      assert.equal(await referrer.page.getByTestId('referral-invited').textContent(), '0');
      const before = await api(referrer.bearer(), ENDPOINTS.getMyAccount);

      // Sign-up through the invite link: the sign-up page names the code; once the mailed link
      // confirms the address (the referral counts from then on), the app opens signed in.
      await invited.page.goto(inviteLink);
      await invited.page
        .getByText(`Invited with code ${new URL(inviteLink).searchParams.get('ref')}`)
        .waitFor();
      await invited.page.getByLabel('Email').fill(INVITED_EMAIL);
      await invited.page.getByLabel('Password').fill('a long enough password');
      await invited.page.getByRole('button', { name: 'Create account' }).click();
      const confirm = await stack.mail.waitFor(INVITED_EMAIL, (m) => m.subject.startsWith('Confirm'));
      await invited.identity.confirmEmail(confirm.text);
      await invited.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
      await invited.shell.waitForBalance('$0.00');
      const account = await api(invited.bearer(), ENDPOINTS.getMyAccount);
      assert.deepEqual(account.permissions, [], 'a new account is under review');

      // Staff grant DEPOSIT through the API with the demo admin's token.
      await signIn(admin, stack.demo.admin.email, stack.demo.admin.password);
      const granted = await api(admin.bearer(), ENDPOINTS.updateAccount, {
        params: { id: account.userID },
        body: { permissions: { add: ['DEPOSIT'] } },
      });
      assert.deepEqual(granted.permissions, ['DEPOSIT']);

      await invited.page.goto(`${stack.webUrl}/add-funds`);
      const form = AddFundsDialog.onPage(invited.page);
      await form.waitForForm();
      const charge = await form.addFunds(invited.context, '20', 'LTC');
      assert.equal(await charge.amount.textContent(), `${LTC_FOR_20_USD} LTC`);
      await charge.qrCode.waitFor();
      await saveScreenshot(charge.page, 'stack-phone-charge-page');
      await payAndSeePaidWithinOnePoll(charge, invited.bearer());
      await new ShellPage(charge.page).waitForBalance('$20.00');
      await saveScreenshot(charge.page, 'stack-phone-charge-paid');

      // The referrer: 10% of the first load, on Payments and on the Referral page.
      const rewarded = before.balanceC + 200;
      const rewardedText = `$${(rewarded / 100).toFixed(2)}`;
      await referrer.page.reload();
      await referrer.page.getByTestId('referral-rewards').filter({ hasText: '$2.00' }).waitFor();
      assert.equal(await referrer.page.getByTestId('referral-invited').textContent(), '1');
      await saveScreenshot(referrer.page, 'stack-referral-rewarded');
      await referrer.page.getByRole('tab', { name: 'Payments' }).click();
      const payments = new PaymentsPage(referrer.page);
      await payments.rows.filter({ hasText: 'Referral reward' }).first().waitFor();
      const [, type, memo, amount, balance] = (await payments.rowTexts())[0] ?? [];
      assert.equal(type, 'Referral reward');
      assert.equal(memo, 'Referral reward: 10% of a $20.00 first load');
      assert.equal(amount, '+$2.00');
      assert.equal(balance, rewardedText);
      await referrer.shell.waitForBalance(rewardedText);
      await saveScreenshot(referrer.page, 'stack-payments-referral');
    } finally {
      await invited.context.close();
      await admin.context.close();
      await referrer.context.close();
    }
  });
});
