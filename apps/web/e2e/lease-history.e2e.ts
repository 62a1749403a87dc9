/**
 * The lease history against a mocked market API (issue 19): search by IP or note with the 3-second
 * lockout, the 60-day date pickers and the end sent, 10 or 20 rows, the empty state, Buy Again both
 * ways, and the phone's Show history toggle and history details by IP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LeaseHistoryPage, NO_HISTORY_TEXT, UNAVAILABLE_TEXT } from './pages/LeaseHistoryPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { buildHistoryItem } from './support/lifecycleMock.ts';
import { isCall, waitForCall } from './support/marketMock.ts';
import { type MockApp, type MockSession, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

/** 25 past leases over the last 49 days; the newest is on agent-0, one on an agent that is gone. */
async function visit(options: MockSessionOptions = {}): Promise<MockSession & { history: LeaseHistoryPage }> {
  const session = await app.newSession(options);
  const items = Array.from({ length: 25 }, (_, n) => buildHistoryItem(n));
  items[1] = { ...items[1]!, agentID: 'agent-gone', ip: '203.0.113.201' };
  session.api.market.lifecycle.history = items;
  return { ...session, history: new LeaseHistoryPage(session.shell.page) };
}

const pad = (n: number) => String(n).padStart(2, '0');
const dayOf = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const daysAgo = (n: number) => dayOf(new Date(Date.now() - n * 86_400_000));

describe('desktop lease history', () => {
  it('pages 10 or 20 rows, searches with a 3 s lockout, keeps dates in order and sends the end a day later', async () => {
    const { context, shell, history, api } = await visit();
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await history.page.getByRole('link', { name: 'Lease History' }).click();
      await history.waitForRows();
      assert.equal(await history.rows.count(), 10);
      assert.equal(await history.pagerRange.textContent(), '1–10 of 25');
      assert.equal(await history.firstDate.inputValue(), daysAgo(60));
      assert.equal(await history.lastDate.inputValue(), daysAgo(0));
      assert.equal(await history.lastDate.getAttribute('max'), daysAgo(0), 'no future dates');
      await saveScreenshot(history.page, 'history-desktop');
      await history.nextPage();
      await history.pagerRange.filter({ hasText: '11–20 of 25' }).waitFor();
      await history.setRowsPerPage(20);
      await history.pagerRange.filter({ hasText: '1–20 of 25' }).waitFor();
      await history.rows.nth(19).waitFor();
      assert.equal(await history.rows.count(), 20);

      await history.search('Scraper');
      assert.equal(await history.searchButton.isDisabled(), true, 'locked right after the click');
      await waitForCall(market, isCall('GET', '/leaseHistory', { query: 'Scraper', offset: '0' }));
      await history.pagerRange.filter({ hasText: 'of 7' }).waitFor();
      await history.searchButton.and(history.page.locator(':enabled')).waitFor({ timeout: 5_000 });

      // The first date past the last moves the last; the end sent is the last date plus one day.
      await history.setDate('last', daysAgo(30));
      await history.setDate('first', daysAgo(20));
      assert.equal(await history.lastDate.inputValue(), daysAgo(20));
      const call = await waitForCall(
        market,
        (c) =>
          isCall('GET', '/leaseHistory')(c) &&
          c.query.get('start') === new Date(`${daysAgo(20)}T00:00:00`).toISOString(),
      );
      assert.equal(call.query.get('end'), new Date(`${daysAgo(19)}T00:00:00`).toISOString());
      assert.equal(call.query.get('offset'), '0', 'a new range starts at the first page');

      await history.setDate('first', daysAgo(60));
      await history.setDate('last', daysAgo(58));
      await history.emptyState.waitFor();
      assert.equal(await history.emptyState.textContent(), NO_HISTORY_TEXT);
    } finally {
      await context.close();
    }
  });

  it('Buy Again: an unavailable proxy says so until closed; an available one opens the purchase', async () => {
    const { context, shell, history, api } = await visit();
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/my/history', fakeAccessToken());
      await history.waitForRows();
      await history.buyAgain('203.0.113.201');
      await history.unavailableDialog.waitFor();
      assert.match(
        (await history.unavailableDialog.textContent()) ?? '',
        new RegExp(UNAVAILABLE_TEXT.replace('.', '\\.')),
      );
      await saveScreenshot(history.page, 'history-unavailable-desktop');
      await history.unavailableDialog.getByRole('button', { name: 'Close' }).click();
      await history.unavailableDialog.waitFor({ state: 'hidden' });

      const item = market.lifecycle.history[0]!;
      await history.buyAgain(item.ip);
      await waitForCall(market, isCall('GET', `/agents/${item.agentID}`));
      const confirm = history.page.getByRole('dialog', { name: 'Confirm Purchase' });
      await confirm.waitFor();
      await confirm.getByRole('button', { name: /^Buy Proxy for/ }).click();
      const purchase = await waitForCall(market, isCall('POST', '/leases'));
      assert.equal((purchase.body as { agentID: string }).agentID, item.agentID);
      await history.page.getByRole('dialog', { name: 'Purchase Successful' }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('phone lease history', () => {
  it('Show history on My Proxies, cards, history details by IP and Buy Again to Confirm Purchase', async () => {
    const { context, shell, history, api } = await visit({ viewport: PHONE });
    const item = api.market.lifecycle.history[0]!;
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await history.showHistory.click();
      await history.page.waitForURL(/\/my\/history$/);
      await history.waitForRows();
      assert.equal(await history.showHistory.isChecked(), true);
      await saveScreenshot(history.page, 'history-phone');
      await history.openCard(item.ip);
      assert.match(history.page.url(), new RegExp(`/my/history-details/${item.ip.replaceAll('.', '\\.')}$`));
      assert.equal(await shell.screenTitle.textContent(), 'History Details');
      assert.equal(await history.value('Lease ID').textContent(), item.leaseID);
      assert.equal(await history.value('IP Address').textContent(), item.ip);
      assert.equal(await history.value('Country').textContent(), 'United States');
      assert.equal(await history.value('City').textContent(), item.loc.city);
      assert.equal(await history.value('State').textContent(), item.loc.reg);
      assert.equal(await history.value('Zip').textContent(), item.loc.zip);
      assert.equal(await history.value('Isp').textContent(), item.loc.isp);
      await saveScreenshot(history.page, 'history-details-phone');
      await history.detailsBuyAgain.click();
      await history.page.waitForURL(new RegExp(`/confirm-purchase\\?agent=${item.agentID}&type=shared$`));

      // Straight to the details of the proxy that is gone: Buy Again says it is unavailable.
      await shell.open(app.baseUrl, '/my/history-details/203.0.113.201');
      await history.detailsBuyAgain.click();
      await history.unavailableDialog.waitFor();
      await history.unavailableDialog.getByRole('button', { name: 'Close' }).click();
      await history.unavailableDialog.waitFor({ state: 'hidden' });
    } finally {
      await context.close();
    }
  });
});
