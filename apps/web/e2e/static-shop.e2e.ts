/**
 * The static-proxy shop against a mocked market API (issue 19): quick countries, the ip, city, isp
 * and conn filters back at page 0, 10/20/50 rows, and each state of the static lease.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTO_REFUND_RULE_SHORT } from '@pm/contracts';
import { StaticShopPage } from './pages/StaticShopPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
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

async function visit(options: MockSessionOptions = {}): Promise<MockSession & { shop: StaticShopPage }> {
  const session = await app.newSession(options);
  return { ...session, shop: new StaticShopPage(session.shell.page) };
}

const refused = (status: number, errorCode?: string) => ({
  status,
  body: { error: 'MOCK', message: 'refused', ...(errorCode ? { errorCode } : {}) },
});

describe('desktop static shop', () => {
  it('pages and filters back to page 0: rows per page, ip, city, isp, conn and the quick countries', async () => {
    const { context, shell, shop, api } = await visit();
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shell.page.getByRole('tab', { name: 'Static Proxies' }).click();
      await shop.waitForRows();
      assert.equal(await shop.rows.count(), 10);
      assert.equal(await shop.pagerRange.textContent(), '1–10 of 14');
      await saveScreenshot(shop.page, 'static-desktop');
      await shop.nextPage();
      await shop.pagerRange.filter({ hasText: '11–14 of 14' }).waitFor();
      await shop.filterBy('City', 'chic');
      await waitForCall(market, isCall('GET', '/static/list/', { city: 'chic', cursor: '0' }));
      await shop.pagerRange.filter({ hasText: '1–5 of 5' }).waitFor();
      await shop.filterBy('City', '');
      await shop.filterBy('ISP', 'atlantic');
      await shop.pagerRange.filter({ hasText: '1–9 of 9' }).waitFor();
      await shop.filterBy('IP', '45.62');
      await waitForCall(market, isCall('GET', '/static/list/', { ip: '45.62', isp: 'atlantic' }));
      await shop.pagerRange.filter({ hasText: 'of 4' }).waitFor();
      await shop.filterBy('IP', '');
      await shop.filterBy('ISP', '');
      await shop.chooseConnection('Cell');
      await waitForCall(market, isCall('GET', '/static/list/', { conn: 'cell' }));
      await shop.chooseConnection('Any');
      await shop.setRowsPerPage(20);
      await shop.pagerRange.filter({ hasText: '1–14 of 14' }).waitFor();
      await shop.chooseCountry('Germany');
      await waitForCall(market, isCall('GET', '/static/list/', { cc: 'DE', limit: '20', cursor: '0' }));
      await shop.pagerRange.filter({ hasText: '1–2 of 2' }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('leases: success closes itself after 1 s; no funds, already leased (list reloads), not found, error', async () => {
    const { context, shell, shop, api } = await visit();
    const { market } = api;
    const first = market.lifecycle.statics[0]!;
    const second = market.lifecycle.statics[1]!;
    try {
      await shell.open(app.baseUrl, '/static', fakeAccessToken());
      await shop.waitForRows();
      const confirm = await shop.buy(first.ip);
      assert.match((await confirm.textContent()) ?? '', /private, for 24 hours/);
      // A static proxy is never refunded automatically: its dialog says so instead of the rules' shop note.
      const note = (await confirm.getByTestId('purchase-refund-note').textContent()) ?? '';
      assert.ok(note.startsWith(AUTO_REFUND_RULE_SHORT), note);
      assert.match(note, /refunded by support within 1 hour of purchase, only if it was not used/);
      assert.doesNotMatch(note, /refunded to the balance automatically/);
      await saveScreenshot(shop.page, 'static-confirm-desktop');
      await shop.confirm();
      const call = await waitForCall(market, isCall('POST', '/static/lease'));
      assert.deepEqual(call.body, { agentID: first.id, expPriceC: first.priceC });
      const success = shop.dialog('Purchase Successful');
      await success.waitFor();
      await success.waitFor({ state: 'hidden', timeout: 3_000 });
      await shop.rows.filter({ hasText: first.ip }).waitFor({ state: 'detached' });
      await shell.waitForBalance('$8.34');

      const states: Array<[ReturnType<typeof refused>, string]> = [
        [refused(402), 'Not Enough Funds'],
        [refused(409, 'agentAlreadyLeased'), 'Already Purchased'],
        [refused(409, 'agentNotFound'), 'Proxy offline'],
        [refused(500), 'Purchase Failed'],
      ];
      for (const [answer, title] of states) {
        market.lifecycle.staticLeaseAnswers.push(answer);
        const callsBefore = market.calls.length;
        await shop.buy(second.ip);
        await shop.confirm();
        const dialog = shop.dialog(title);
        await dialog.waitFor();
        if (title === 'Already Purchased') {
          await waitForCall(
            market,
            (c) => isCall('GET', '/static/list/')(c) && market.calls.indexOf(c) >= callsBefore,
          );
          await saveScreenshot(shop.page, 'static-already-leased-desktop');
        }
        await dialog.getByRole('button', { name: title === 'Not Enough Funds' ? 'Close' : 'OK' }).click();
        await dialog.waitFor({ state: 'hidden' });
      }
      assert.equal(await shell.page.getByTestId('state-error').count(), 0, 'no global error');
    } finally {
      await context.close();
    }
  });
});

describe('phone static shop', () => {
  it('cards, a filter and a purchase', async () => {
    const { context, shell, shop, api } = await visit({ viewport: PHONE });
    const offer = api.market.lifecycle.statics.find((s) => s.loc.city === 'Dallas')!;
    try {
      await shell.open(app.baseUrl, '/static', fakeAccessToken());
      await shop.waitForRows();
      await shop.filterBy('City', 'Dallas');
      await shop.pagerRange.filter({ hasText: 'of 4' }).waitFor();
      await saveScreenshot(shop.page, 'static-phone');
      await shop.buy(offer.ip);
      await shop.confirm();
      await shop.dialog('Purchase Successful').waitFor();
    } finally {
      await context.close();
    }
  });
});
