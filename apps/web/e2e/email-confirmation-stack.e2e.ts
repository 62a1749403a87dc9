/**
 * Unconfirmed accounts can sign in but cannot top up or buy (issue 36 item 7), on the whole
 * product: a new customer signs up and signs in without opening the mailed link; a banner says
 * what is missing, Add Funds says the same, a purchase paid with money staff credited is refused
 * with a readable dialog, staff see the state in the user panel; "Resend the link" mails a new
 * link, which confirms the address, and "I've confirmed" unlocks the purchase (1280 px); the same
 * banner, Add Funds page and resend at 390 px.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENDPOINTS, type TAccount } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { TIMEOUT_MS } from './pages/ShellPage.ts';
import { ShopPage } from './pages/ShopPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, type StackVisit, stackApiWithToken, waitUntil } from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_email_confirmation', network: { agentCount: 8 } }, (s, b) => {
  stack = s;
  browser = b;
});

const BANNER = 'confirm-email-banner';

/** Signs up on the identity pages, leaves the mailed link unopened and signs in to the app. */
async function signUpWithoutConfirming(v: StackVisit, email: string, password: string): Promise<void> {
  await v.page.goto(stack.webUrl);
  await v.identity.signUp(email, password);
  await v.page.getByRole('heading', { name: 'Check your email' }).waitFor({ timeout: TIMEOUT_MS });
  await stack.mail.waitFor(email, (m) => m.subject.startsWith('Confirm'));
  await v.page.goto(stack.webUrl);
  await v.identity.signIn(email, password);
  await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
  await v.shell.waitForShell();
}

/** The confirmation mails sent to `email`, oldest first. */
async function confirmationLinks(email: string): Promise<string[]> {
  const mails = (await stack.mail.list())
    .filter((m) => m.to.includes(email) && m.subject.startsWith('Confirm'))
    .sort((a, b) => a.id - b.id);
  return mails.map((m) => /https?:\/\/\S+\/verify-email\?token=[\w-]+/.exec(m.text)?.[0] ?? '');
}

/** The customer's account, read with a password-grant token (which says what the sign-in host says). */
async function accountOf(email: string, password: string): Promise<TAccount> {
  const token = await stack.token(email, password);
  return (await stackApiWithToken(stack, token, ENDPOINTS.getMyAccount)).ok();
}

/** Staff credit `amountC` to the customer's balance (a credit is not a purchase: it is allowed). */
async function staffCredit(userId: string, amountC: number): Promise<void> {
  const { admin } = stack.demo;
  const token = await stack.token(admin.email, admin.password);
  const res = await stackApiWithToken(stack, token, ENDPOINTS.updateAccount, {
    params: { id: userId },
    body: { balanceDeltaC: amountC, reason: 'e2e: money before the address is confirmed' },
  });
  res.ok();
}

describe('an unconfirmed address on the whole product', () => {
  it('signs in, cannot add funds or buy, staff see it; resent link, confirmed, then buys (1280 px)', {
    timeout: 180_000,
  }, async () => {
    const who = { email: 'unconfirmed.desktop@example.com', password: 'a long enough password' };
    const v = await openStackVisit(browser, stack, { viewport: DESKTOP });
    try {
      await signUpWithoutConfirming(v, who.email, who.password);
      const banner = v.page.getByTestId(BANNER);
      await banner.waitFor();
      assert.match(await banner.innerText(), /Confirm your email address/);
      assert.match(
        await banner.innerText(),
        new RegExp(`link we sent to ${who.email.replaceAll('.', '\\.')}`),
      );
      await saveScreenshot(v.page, 'email-unconfirmed-banner-1280');

      // Add Funds says why instead of offering the form.
      await v.page.getByRole('button', { name: 'Balance: add funds' }).click();
      const addFunds = v.page.getByTestId('add-funds-confirm-email');
      await addFunds.getByText('Confirm your email address first').waitFor();
      await saveScreenshot(v.page, 'email-unconfirmed-add-funds-1280');
      await v.page.keyboard.press('Escape');

      // Money credited by staff cannot be spent before the confirmation: the server says 403.
      const account = await accountOf(who.email, who.password);
      assert.equal(account.emailVerified, false);
      await staffCredit(account.userID, 2000);
      const shop = new ShopPage(v.page);
      await v.page.goto(`${stack.webUrl}/shop`);
      await v.shell.waitForShell();
      await v.shell.waitForBalance('$20.00');
      await shop.waitForRows();
      await shop.selectRow(0);
      const refused = await shop.buySelected('Confirm Your Email');
      assert.match(await refused.innerText(), /Confirm your email address first: open the link we sent you/);
      await saveScreenshot(v.page, 'email-unconfirmed-purchase-refused-1280');
      await shop.dismissPurchaseDialog('Confirm Your Email');
      await v.shell.waitForBalance('$20.00');

      // Staff see the state in the user panel.
      const staff = await openStackVisit(browser, stack, { viewport: DESKTOP });
      try {
        await staff.page.goto(`${stack.webUrl}/bigadmin`);
        const { admin } = stack.demo;
        await staff.identity.signIn(admin.email, admin.password, await stack.totpCode(admin.email));
        await staff.page.getByRole('tab', { name: 'User Info' }).waitFor({ timeout: TIMEOUT_MS });
        await staff.page.getByTestId('admin-email').fill(who.email);
        await staff.page.getByRole('button', { name: 'Find by e-mail' }).click();
        const state = staff.page.getByTestId('admin-email-verified');
        await state.waitFor();
        assert.match(await state.innerText(), /^no: cannot add funds or buy/);
        await saveScreenshot(staff.page, 'email-unconfirmed-admin-1280');
      } finally {
        await staff.context.close();
      }

      // "Resend the link": a new mail, the older link dead.
      const before = await confirmationLinks(who.email);
      await banner.getByRole('button', { name: 'Resend the link' }).click();
      await v.shell.text(`We sent a new link to ${who.email}; the older ones no longer work.`).waitFor();
      await waitUntil(
        async () => (await confirmationLinks(who.email)).length === before.length + 1,
        'the new mail',
      );
      const newest = (await confirmationLinks(who.email)).at(-1) ?? '';
      assert.equal((await fetch(before[0] ?? '')).status, 400, 'the first link no longer works');

      // Not confirmed yet: "I've confirmed" says so and the banner stays.
      await banner.getByRole('button', { name: "I've confirmed" }).click();
      await v.shell.text(`Not confirmed yet: open the link in the mail we sent to ${who.email}.`).waitFor();

      // The link, opened in another tab; back here "I've confirmed" unlocks the purchase.
      const mailTab = await v.context.newPage();
      await mailTab.goto(newest);
      await mailTab.getByRole('heading', { name: 'Email confirmed' }).waitFor();
      await mailTab.close();
      await banner.getByRole('button', { name: "I've confirmed" }).click();
      await banner.waitFor({ state: 'detached' });
      const bought = await shop.buySelected('Purchase Successful');
      await bought.waitFor({ state: 'detached', timeout: TIMEOUT_MS });
      assert.equal((await accountOf(who.email, who.password)).emailVerified, true);
      await saveScreenshot(v.page, 'email-confirmed-bought-1280');
    } finally {
      await v.context.close();
    }
  });

  it('the banner, Add Funds and "Resend the link" at 390 px', { timeout: 120_000 }, async () => {
    const who = { email: 'unconfirmed.phone@example.com', password: 'a long enough password' };
    const v = await openStackVisit(browser, stack, { viewport: PHONE });
    try {
      await signUpWithoutConfirming(v, who.email, who.password);
      const banner = v.page.getByTestId(BANNER);
      await banner.waitFor();
      const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `the page overflows by ${overflow} px`);
      await saveScreenshot(v.page, 'email-unconfirmed-banner-390');

      await v.page.goto(`${stack.webUrl}/add-funds`);
      await v.page.getByTestId('add-funds-confirm-email').waitFor({ timeout: TIMEOUT_MS });
      await saveScreenshot(v.page, 'email-unconfirmed-add-funds-390');

      const before = (await confirmationLinks(who.email)).length;
      await v.page.getByTestId(BANNER).getByRole('button', { name: 'Resend the link' }).click();
      await v.shell.text(`We sent a new link to ${who.email}; the older ones no longer work.`).waitFor();
      await waitUntil(async () => (await confirmationLinks(who.email)).length === before + 1, 'the new mail');
      const mailTab = await v.context.newPage();
      await mailTab.goto((await confirmationLinks(who.email)).at(-1) ?? '');
      await mailTab.getByRole('heading', { name: 'Email confirmed' }).waitFor();
      await mailTab.close();
      await v.page.getByTestId(BANNER).getByRole('button', { name: "I've confirmed" }).click();
      await v.page.getByTestId(BANNER).waitFor({ state: 'detached' });
      // Confirmed: Add Funds moves on to its next gate (the test stack leaves new accounts without
      // DEPOSIT, so staff review them; npm start grants it at sign-up).
      await v.page.getByTestId('account-under-review').waitFor({ timeout: TIMEOUT_MS });
      assert.equal(await v.page.getByTestId('add-funds-confirm-email').count(), 0);
      await saveScreenshot(v.page, 'email-confirmed-add-funds-390');
    } finally {
      await v.context.close();
    }
  });
});
