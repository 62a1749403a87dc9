/**
 * Adding funds and the charge page against a mocked market API (page routes): the form's rules of
 * Rules §5, the new tab with the charge page, payment errors, the account under review, the charge
 * turning paid after a poll, and the Referral page. Desktop and 390 px.
 * The same journeys on the real stack (paying through the devnet chain simulator) reuse these page models.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import {
  AddFundsDialog,
  PAYMENT_ERROR_TEXT,
  UNDER_REVIEW_TEXT,
  UNDER_REVIEW_TITLE,
  USDT_FEE_NOTE,
} from './pages/AddFundsDialog.ts';
import { ChargePage, WALLET_WARNING } from './pages/ChargePage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { isCall, waitForCall } from './support/marketMock.ts';
import { type MockApp, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { buildAccount, fakeAccessToken, MOCK_ISSUER } from './support/mockBackend.ts';
import { buildCharge, payCharge } from './support/paymentsMock.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

/** A signed-in session whose account has the DEPOSIT permission unless told otherwise. */
async function depositor(options: MockSessionOptions = {}) {
  return app.newSession({ account: buildAccount({ permissions: ['DEPOSIT'] }), ...options });
}

describe('desktop add funds', () => {
  it('the form: default $5 BTC, minimums, currency resets the default, the USDT fee note', async () => {
    const { context, shell } = await depositor();
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.page.getByRole('button', { name: 'Balance: add funds' }).click();
      const form = AddFundsDialog.dialog(shell.page);
      await form.waitForForm();
      assert.equal(await form.amount.inputValue(), '5');
      assert.equal(await form.currencyLabel(), 'BTC');
      assert.equal(await form.submit.isEnabled(), true);
      await form.root.getByText('Please allow pop-ups for this site.', { exact: false }).waitFor();
      await form.root.getByRole('link', { name: 'Terms and Conditions' }).waitFor();
      await saveScreenshot(shell.page, 'desktop-add-funds-dialog');

      await form.amount.fill('4.99');
      assert.equal(await form.submit.isEnabled(), false, 'below the $5 minimum');
      assert.equal(await form.amount.getAttribute('aria-invalid'), 'false', 'no error state from $2 up');
      await form.amount.fill('1');
      assert.equal(await form.amount.getAttribute('aria-invalid'), 'true', 'error state below $2');
      await form.amount.fill('abc');
      assert.equal(await form.submit.isEnabled(), false);

      await form.chooseCurrency('LTC');
      assert.equal(await form.amount.inputValue(), '5', 'a currency change resets the default');
      assert.equal(await form.feeNote.count(), 0);
      await form.chooseCurrency('USDT TRC20');
      assert.equal(await form.amount.inputValue(), '10');
      assert.equal(await form.feeNote.textContent(), USDT_FEE_NOTE);
      await form.amount.fill('9');
      assert.equal(await form.submit.isEnabled(), false, 'below the $10 USDT minimum');
      await form.amount.fill('10');
      assert.equal(await form.submit.isEnabled(), true);
      await saveScreenshot(shell.page, 'desktop-add-funds-usdt');
      await form.chooseCurrency('BTC');
      assert.equal(await form.amount.inputValue(), '5');
      assert.equal(await form.feeNote.count(), 0);
    } finally {
      await context.close();
    }
  });

  it('Add Funds opens the charge page in a new tab with address, amount and QR code', async () => {
    const { context, shell, api } = await depositor();
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.chooseUserMenuItem('Add Funds');
      const form = AddFundsDialog.dialog(shell.page);
      await form.waitForForm();
      const charge = await form.addFunds(context, '20', 'LTC');

      const create = await waitForCall(api.market, isCall('POST', '/crypto/create'));
      assert.deepEqual(create.body, {
        amount: 2000,
        type: 'ltc',
        user_id: 'user-1',
        user_email: 'customer@example.com',
      });
      const created = api.payments.charges[0]!;
      assert.equal(charge.code, created.code);
      assert.equal(await charge.statusLabel(), 'No payments');
      assert.equal(await charge.address.textContent(), created.address);
      assert.equal(await charge.amount.textContent(), '0.25000000 LTC');
      assert.equal(await charge.usdAmount.textContent(), '$20.00');
      assert.equal(await charge.detail('Currency'), 'LTC');
      assert.equal(await charge.detail('Exchange rate'), '$80.00 per LTC');
      assert.equal(await charge.detail('Bonus'), 'None');
      assert.deepEqual(await charge.qrValue(), {
        value: `litecoin:${created.address}?amount=0.25000000`,
        hasSvg: true,
      });
      assert.equal(await charge.walletWarning.textContent(), WALLET_WARNING);
      await saveScreenshot(charge.page, 'desktop-charge-page');

      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      await charge.copyAddress();
      await charge.page.getByText('Copied to clipboard', { exact: true }).waitFor();
      assert.equal(await charge.page.evaluate(() => navigator.clipboard.readText()), created.address);

      // The form shows the created charge until it is reset, also after the dialog is reopened.
      await shell.page.bringToFront();
      await form.created.getByText(created.address).waitFor();
      assert.equal(await form.created.locator('[data-notice]').getAttribute('data-notice'), 'opened');
      await saveScreenshot(shell.page, 'desktop-add-funds-created');
      await shell.page.getByRole('button', { name: 'Close' }).click();
      await shell.chooseUserMenuItem('Add Funds');
      await form.created.waitFor();
      assert.equal(await form.created.locator('[data-notice]').getAttribute('data-notice'), 'kept');
      await form.root.getByRole('button', { name: 'New payment' }).click();
      assert.equal(await form.amount.inputValue(), '5');
    } finally {
      await context.close();
    }
  });

  it("a failed charge says 'Payment Error: Please try again later.' and closes the blank tab", async () => {
    const { context, shell, api } = await depositor();
    try {
      api.payments.createAnswers.push({ status: 500, body: { error: 'INTERNAL', message: 'rates down' } });
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.page.getByRole('button', { name: 'Balance: add funds' }).click();
      const form = AddFundsDialog.dialog(shell.page);
      await form.waitForForm();
      await form.submit.click();
      await form.paymentError.waitFor();
      assert.equal(await form.paymentError.textContent(), PAYMENT_ERROR_TEXT);
      await waitFor(() => context.pages().length === 1, { timeoutMs: 10_000, what: 'the blank tab closes' });
      assert.equal(await shell.page.getByTestId('state-error').count(), 0, 'no global error screen');
      await saveScreenshot(shell.page, 'desktop-add-funds-error');
      // Trying again works.
      const charge = await form.addFunds(context, '5');
      assert.equal(await charge.statusLabel(), 'No payments');
    } finally {
      await context.close();
    }
  });

  it('a blocked pop-up leaves a link to the payment page', async () => {
    const { context, shell, api } = await depositor();
    try {
      await shell.page.addInitScript(() => {
        window.open = () => null;
      });
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.chooseUserMenuItem('Add Funds');
      const form = AddFundsDialog.dialog(shell.page);
      await form.waitForForm();
      await form.submit.click();
      await form.created
        .locator('[data-notice="blocked"]')
        .getByText('allow pop-ups', { exact: false })
        .waitFor();
      const link = form.created.getByRole('link', { name: 'Open payment page' });
      assert.equal(await link.getAttribute('href'), `/charges/${api.payments.charges[0]!.code}`);
      assert.equal(await link.getAttribute('target'), '_blank');
    } finally {
      await context.close();
    }
  });

  it('without DEPOSIT the account is under review', async () => {
    const { context, shell } = await app.newSession();
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.chooseUserMenuItem('Add Funds');
      const form = AddFundsDialog.dialog(shell.page);
      await form.underReview.waitFor();
      await form.root.getByText(UNDER_REVIEW_TITLE, { exact: true }).waitFor();
      await form.root.getByText(UNDER_REVIEW_TEXT, { exact: true }).waitFor();
      assert.equal(await form.submit.count(), 0);
    } finally {
      await context.close();
    }
  });
});

describe('charge page', () => {
  it('polls every 30 s and turns paid; the balance rises and the kept charge is forgotten', async () => {
    const { context, shell, api } = await depositor();
    try {
      const charge = buildCharge({ currency: 'btc', bonusType: 5 });
      api.payments.charges.push(charge);
      await shell.page.clock.install();
      await shell.open(app.baseUrl, `/charges/${charge.code}`, fakeAccessToken());
      const page = new ChargePage(shell.page);
      await page.waitForCharge();
      assert.equal(await page.statusLabel(), 'No payments');
      assert.equal(await page.detail('Bonus'), '5% ($1.00)');
      await shell.page.evaluate(
        (code) => localStorage.setItem('pm.openCharge', JSON.stringify({ code })),
        charge.code,
      );

      payCharge(api.payments, api.account, charge.code, { bonusUsd: cents(100) });
      await shell.page.clock.runFor(29_000);
      assert.equal(await page.statusCode(), 'new', 'no poll before 30 s');
      await shell.page.clock.runFor(1_500);
      await page.waitForStatus('paid');
      assert.equal(await page.statusLabel(), 'Paid');
      const check = await waitForCall(api.market, isCall('POST', '/crypto/check'));
      assert.deepEqual(check.body, { uid: charge.uid });
      await shell.waitForBalance('$32.34');
      assert.equal(await page.detail('Credited'), '$20.00 + $1.00 bonus');
      assert.equal(await shell.page.evaluate(() => localStorage.getItem('pm.openCharge')), null);
      await saveScreenshot(shell.page, 'desktop-charge-paid');

      const checks = () => api.market.calls.filter((c) => c.path === '/crypto/check').length;
      const before = checks();
      await shell.page.clock.runFor(95_000);
      assert.equal(checks(), before, 'no polling once paid');
    } finally {
      await context.close();
    }
  });

  it('explains a late, short payment and an unknown code', async () => {
    const { context, shell, api } = await depositor();
    try {
      const charge = buildCharge({
        status: 'partial',
        late: true,
        receivedCrypto: '0.1',
        creditedUsd: cents(800),
      });
      api.payments.charges.push(charge);
      await shell.open(app.baseUrl, `/charges/${charge.code}`, fakeAccessToken());
      const page = new ChargePage(shell.page);
      await page.waitForCharge();
      assert.equal(await page.statusLabel(), 'Partly paid');
      assert.match((await page.status.textContent()) ?? '', /after this address expired/);
      assert.equal(await page.detail('Received'), '0.1 LTC');

      await shell.open(app.baseUrl, '/charges/NOSUCHCODE00', fakeAccessToken());
      await page.notFound.waitFor();
      assert.equal(await shell.page.getByTestId('state-error').count(), 0);
    } finally {
      await context.close();
    }
  });
});

describe('390 px add funds and referral', () => {
  it('the /add-funds page opens the charge page in a new tab', async () => {
    const { context, shell } = await depositor({ viewport: PHONE });
    try {
      await shell.open(app.baseUrl, '/shop', fakeAccessToken());
      await shell.page.getByRole('link', { name: 'Balance: add funds' }).click();
      await shell.page.waitForURL((u) => u.pathname === '/add-funds');
      const form = AddFundsDialog.onPage(shell.page);
      await form.waitForForm();
      await form.chooseCurrency('USDT TRC20');
      assert.equal(await form.feeNote.textContent(), USDT_FEE_NOTE);
      await saveScreenshot(shell.page, 'phone-add-funds-usdt');
      const charge = await form.addFunds(context, '25');
      const { value } = await charge.qrValue();
      assert.equal(value, await charge.address.textContent(), 'TRON: the bare address');
      assert.equal(await charge.amount.textContent(), '25.000000 USDT');
      await saveScreenshot(charge.page, 'phone-charge-page');
      await shell.page.bringToFront();
      await form.created.waitFor();
      await saveScreenshot(shell.page, 'phone-add-funds-created');
    } finally {
      await context.close();
    }
  });

  it("under review on the phone's page too", async () => {
    const { context, shell } = await app.newSession({ viewport: PHONE });
    try {
      await shell.open(app.baseUrl, '/add-funds', fakeAccessToken());
      await AddFundsDialog.onPage(shell.page).underReview.waitFor();
      await saveScreenshot(shell.page, 'phone-add-funds-under-review');
    } finally {
      await context.close();
    }
  });

  it('referral: the invite link copies and says so for 3 s; sign-ups and rewards from GET /referral', async () => {
    const { context, shell, api } = await app.newSession({ viewport: PHONE });
    try {
      api.payments.referral = { invitedCount: 3, rewardsC: 450 };
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      await shell.open(app.baseUrl, '/referral', fakeAccessToken());
      const link = shell.page.getByTestId('invite-link');
      assert.equal(await link.textContent(), `${MOCK_ISSUER}/signup?ref=REF123`);
      await shell.page.getByTestId('referral-stats').waitFor();
      assert.equal(await shell.page.getByTestId('referral-invited').textContent(), '3');
      assert.equal(await shell.page.getByTestId('referral-rewards').textContent(), '$4.50');
      assert.ok(
        api.requests.some((r) => r.method === 'GET' && r.path === '/referral'),
        'the page asks GET /referral',
      );
      await link.click();
      const toast = shell.page.getByText('Copied to clipboard', { exact: true });
      await toast.waitFor();
      const shownAt = Date.now();
      assert.equal(
        await shell.page.evaluate(() => navigator.clipboard.readText()),
        `${MOCK_ISSUER}/signup?ref=REF123`,
      );
      await saveScreenshot(shell.page, 'phone-referral');
      await toast.waitFor({ state: 'hidden', timeout: 10_000 });
      const shownMs = Date.now() - shownAt;
      assert.ok(shownMs >= 2_000 && shownMs < 6_000, `shown for about 3 s, was ${shownMs} ms`);
    } finally {
      await context.close();
    }
  });
});
