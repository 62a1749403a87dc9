/**
 * The Payments page against a mocked market API (page routes): the table of 10 rows a page, the
 * date pickers of rules §5 and the range they send, the empty state, referral rewards and bonuses as
 * rows, the Add Funds link, and the phone's list with Show more payments.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cents } from '@pm/money';
import { AddFundsDialog } from './pages/AddFundsDialog.ts';
import { NO_TRANSACTIONS_TEXT, PaymentsPage } from './pages/PaymentsPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { isCall, waitForCall } from './support/marketMock.ts';
import { type MockApp, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { buildAccount, fakeAccessToken } from './support/mockBackend.ts';
import { buildTxRecord } from './support/paymentsMock.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

/** The visitor's day `n` days from today (negative: back), `YYYY-MM-DD`, its local midnight and noon. */
function day(n: number): { day: string; midnight: string; noon: string } {
  const now = new Date();
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate() + n);
  const pad = (x: number) => String(x).padStart(2, '0');
  return {
    day: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
    midnight: d.toISOString(),
    noon: new Date(d.getFullYear(), d.getMonth(), d.getDate(), 12).toISOString(),
  };
}

/**
 * 25 records every third day from today back (a referral reward, a bonus and deposits among the
 * purchases), and one 100 days back that the 90-day window leaves out.
 */
async function openPayments(options: MockSessionOptions = {}) {
  const session = await app.newSession({ account: buildAccount({ permissions: ['DEPOSIT'] }), ...options });
  const records = session.api.payments.txRecords;
  for (let i = 0; i < 25; i++) {
    // At noon of the visitor's day, so every record's day is certain whatever the time and DST.
    records.push(buildTxRecord(0, { time: day(-i * 3).noon, balC: cents(10_000 - i * 275) }));
  }
  records[1] = {
    ...records[1]!,
    type: 'referral',
    memo: 'Referral reward: 10% of a first load',
    amtC: cents(200),
  };
  records[2] = { ...records[2]!, type: 'bonus', memo: 'Bonus 5% on LTC payment', amtC: cents(100) };
  records[3] = { ...records[3]!, type: 'deposit', memo: 'LTC payment', amtC: cents(2000) };
  records.push(buildTxRecord(100));
  await session.shell.open(app.baseUrl, '/payments', fakeAccessToken());
  return { ...session, payments: new PaymentsPage(session.shell.page) };
}

describe('desktop payments', () => {
  it('10 rows a page with time, type, memo, amount and balance; referral rewards and bonuses are rows', async () => {
    const { context, payments, api } = await openPayments();
    try {
      await payments.waitForRows();
      const first = await waitForCall(api.market, isCall('GET', '/txrecords'));
      assert.deepEqual(Object.fromEntries(first.query), {
        offset: '0',
        limit: '10',
        start: day(-90).midnight,
        end: day(1).midnight,
      });
      assert.equal(await payments.rows.count(), 10);
      assert.equal(await payments.pagerRange.textContent(), '1–10 of 25');
      assert.equal(await payments.page.getByLabel('Rows per page:').count(), 0, 'no page size choice');
      const rows = await payments.rowTexts();
      assert.deepEqual(rows[1]!.slice(1), [
        'Referral reward',
        'Referral reward: 10% of a first load',
        '+$2.00',
        '$97.25',
      ]);
      assert.deepEqual(rows[2]!.slice(1, 4), ['Bonus', 'Bonus 5% on LTC payment', '+$1.00']);
      assert.deepEqual(rows[4]!.slice(1, 5), ['Purchase', rows[4]![2]!, '-$2.75', '$89.00']);
      await saveScreenshot(payments.page, 'desktop-payments');

      await payments.nextPage();
      await payments.pagerRange.filter({ hasText: '11–20 of 25' }).waitFor();
      await payments.nextPage();
      await payments.pagerRange.filter({ hasText: '21–25 of 25' }).waitFor();
      assert.equal(await payments.rows.count(), 5);
      assert.equal(await payments.page.getByRole('button', { name: 'Go to next page' }).isDisabled(), true);
      assert.ok(api.market.calls.some((c) => c.path === '/txrecords' && c.query.get('offset') === '20'));
    } finally {
      await context.close();
    }
  });

  it('date pickers: back 90 days, no future dates, one moves the other, a new range starts on page 1', async () => {
    const { context, payments, api } = await openPayments();
    try {
      await payments.waitForRows();
      assert.deepEqual(await payments.dates(), {
        first: day(-90).day,
        last: day(0).day,
        min: day(-90).day,
        max: day(0).day,
      });
      await payments.nextPage();
      await payments.pagerRange.filter({ hasText: '11–20 of 25' }).waitFor();

      await payments.setDate('first', day(-10).day);
      await payments.pagerRange.filter({ hasText: '1–4 of 4' }).waitFor();
      await waitForCall(api.market, isCall('GET', '/txrecords', { start: day(-10).midnight, offset: '0' }));

      await payments.setDate('last', day(-21).day);
      await payments.pagerRange.filter({ hasText: '1–1 of 1' }).waitFor();
      assert.equal(
        (await payments.dates()).first,
        day(-21).day,
        'the last date before the first moves the first',
      );
      await waitForCall(
        api.market,
        isCall('GET', '/txrecords', { start: day(-21).midnight, end: day(-20).midnight }),
      );

      await payments.setDate('last', day(-85).day);
      await payments.waitForEmpty();
      assert.equal(await payments.empty.textContent(), NO_TRANSACTIONS_TEXT);
      await saveScreenshot(payments.page, 'desktop-payments-empty');

      await payments.setDate('first', day(-5).day);
      assert.equal((await payments.dates()).last, day(-5).day, 'the first date past the last moves the last');
      await payments.setDate('last', day(3).day);
      assert.equal((await payments.dates()).last, day(0).day, 'no future dates');
      await payments.setDate('first', day(-120).day);
      assert.equal((await payments.dates()).first, day(-90).day, 'not before 90 days back');
    } finally {
      await context.close();
    }
  });

  it('the Add Funds link opens the add-funds dialog', async () => {
    const { context, payments } = await openPayments();
    try {
      await payments.waitForRows();
      await payments.addFunds.click();
      await AddFundsDialog.dialog(payments.page).waitForForm();
    } finally {
      await context.close();
    }
  });

  it('an account without records says so', async () => {
    const { context, shell } = await app.newSession();
    try {
      await shell.open(app.baseUrl, '/payments', fakeAccessToken());
      const payments = new PaymentsPage(shell.page);
      await payments.waitForEmpty();
      assert.equal(await payments.empty.textContent(), NO_TRANSACTIONS_TEXT);
    } finally {
      await context.close();
    }
  });
});

describe('390 px payments', () => {
  it('a list with Show more payments, and the Add Funds link to /add-funds', async () => {
    const { context, payments, shell } = await openPayments({ viewport: PHONE });
    try {
      await payments.waitForRows();
      assert.equal(await payments.cards.count(), 10);
      assert.equal(await payments.cards.nth(1).getAttribute('data-type'), 'referral');
      await saveScreenshot(payments.page, 'phone-payments');
      await payments.showMore.click();
      await payments.cards.nth(19).waitFor();
      await payments.showMore.click();
      await payments.cards.nth(24).waitFor();
      assert.equal(await payments.cards.count(), 25);
      assert.equal(await payments.showMore.count(), 0, 'no more to show');

      await payments.setDate('first', day(-10).day);
      await payments.cards.nth(3).waitFor();
      await shell.page.waitForFunction(
        () => document.querySelectorAll('[data-testid="payment-card"]').length === 4,
      );

      await payments.addFunds.click();
      await shell.page.waitForURL((u) => u.pathname === '/add-funds');
    } finally {
      await context.close();
    }
  });
});
