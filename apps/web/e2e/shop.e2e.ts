/**
 * The shop and the purchase against a mocked market API (page routes): chips, table, filters,
 * Advanced Search, paging, the purchase with every dialog of rules §8, and the phone's pages.
 * The same journeys on the real stack are in shop-stack.e2e.ts, with the same page model.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTO_REFUND_RULE_SHORT } from '@pm/contracts';
import { waitFor } from '@pm/testkit';
import { ShopPage, PURCHASE_DIALOG_TITLES as TITLES } from './pages/ShopPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { buildAgent, isCall, waitForCall } from './support/marketMock.ts';
import { type MockApp, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

const NOTHING_FOUND =
  'Nothing found :( We are working hard on getting IPs you have requested, they will be available soon!';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

async function openShop(options: MockSessionOptions = {}) {
  const session = await app.newSession(options);
  const shop = new ShopPage(session.shell.page);
  return { ...session, shop, market: session.api.market };
}

const urlParams = (shop: ShopPage) => new URL(shop.page.url()).searchParams;

describe('desktop shop', () => {
  it('chips with counts, the table as rules §2 shows it, paging and the More menu', async () => {
    const { context, shell, shop, market } = await openShop();
    try {
      const bosnia = buildAgent(40, { id: 'agent-ba' });
      market.agents.push({ ...bosnia, loc: { ...bosnia.loc, cc: 'BA', reg: 'Sarajevo', city: 'Sarajevo' } });
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shop.waitForRows();
      for (const [cc, n] of [
        ['US', '15'],
        ['GB', '5'],
        ['AE', '2'],
        ['CA', '2'],
        ['IT', '0'],
        ['CN', '0'],
      ]) {
        assert.equal(await shop.chipCount(cc!), n, cc);
      }
      assert.equal(await shop.chip('US').getAttribute('aria-pressed'), 'true', 'US is the default');
      assert.equal(await shop.total.textContent(), '15 proxies in United States');
      assert.equal(await shop.rows.count(), 10, '10 rows by default');

      const ips = await shop.columnValues(0);
      assert.ok(
        ips.every((ip) => ip.endsWith('.***') && !ip.includes('_')),
        ips.join(),
      );
      assert.equal(await shop.rows.getByRole('img', { name: /^Clean score \d+ of 10$/ }).count(), 10);
      const bands = await shop.rows
        .locator('[data-band]')
        .evaluateAll((els) =>
          els.map((e) => `${e.getAttribute('aria-label')}:${e.getAttribute('data-band')}`),
        );
      for (const b of bands) {
        const score = Number(/score (\d+)/.exec(b)?.[1]);
        assert.ok(b.endsWith(score <= 5 ? ':low' : ':high'), b);
      }
      const shared = await shop.columnValues(6);
      assert.ok(shared.includes('Private') && shared.includes('2 of 4'), shared.join());
      assert.ok((await shop.rows.getByRole('img', { name: 'Android device' }).count()) > 0);
      assert.ok((await shop.columnValues(7)).every((c) => c === 'Wifi' || c === 'Cell'));
      assert.ok((await shop.columnValues(8)).every((c) => c === 'Yes' || c === 'No'));
      assert.ok((await shop.columnValues(9)).every((c) => /^\$\d+\.\d\d$/.test(c)));
      await saveScreenshot(shop.page, 'shop-desktop');

      await shop.nextPage();
      await shop.pageRange.filter({ hasText: '11–15 of 15' }).waitFor();
      await waitFor(async () => (await shop.rows.count()) === 5, {
        timeoutMs: 10_000,
        what: 'the second page shows 5 rows',
      });
      await waitForCall(market, isCall('GET', '/agents', { cursor: '10', limit: '10' }));
      await shop.setRowsPerPage(20);
      await waitFor(async () => (await shop.rows.count()) === 15, {
        timeoutMs: 10_000,
        what: '20 rows per page show all 15',
      });
      assert.equal(urlParams(shop).get('rows'), '20');

      // A filter change goes back to page 0.
      await shop.setRowsPerPage(10);
      await shop.nextPage();
      await shop.pageRange.filter({ hasText: '11–15' }).waitFor();
      await shop.showFilters();
      await shop.chooseFilter('Conn', 'Cell');
      await waitForCall(market, isCall('GET', '/agents', { conn: 'cell', cursor: '0' }));
      await shop.pageRange.filter({ hasText: /^1–/ }).waitFor();
      assert.ok((await shop.columnValues(7)).every((c) => c === 'Cell'));

      const menu = await shop.openMoreMenu();
      const items = await menu.getByRole('menuitem').allInnerTexts();
      assert.deepEqual(
        items.map((t) => t.replace(/\s+/g, ' ')),
        ['Bosnia and Her… 1', 'Germany 2'],
        'other countries with proxies, names cut at 15 characters',
      );
      await menu.getByRole('menuitem', { name: /^Germany/ }).click();
      await shop
        .chip('DE')
        .filter({ has: shop.page.locator('[data-testid="count-DE"]') })
        .waitFor();
      assert.equal(await shop.chip('DE').getAttribute('aria-pressed'), 'true');
      // The connection filter (Cell) stays across countries.
      await shop.total.filter({ hasText: '1 proxy in Germany' }).waitFor();
      assert.equal(await shop.advancedSearchButton.count(), 1, 'Germany has the radius search');
      await shop.chooseCountry('GB');
      await shop.total.filter({ hasText: 'in United Kingdom' }).waitFor();
      assert.equal(await shop.advancedSearchButton.count(), 0, 'the UK has no radius search');
    } finally {
      await context.close();
    }
  });

  it('filter row: pickers, IP prefix after 1 s with rules §5 validation, empty message, Advanced Search', async () => {
    const { context, shell, shop, market } = await openShop();
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shop.waitForRows();
      await shop.showFilters();
      await shop.pickSegment('Region', 'Texas');
      await waitForCall(market, isCall('GET', '/agents', { reg: 'Texas' }));
      await shop.pageRange.filter({ hasText: 'of 6' }).waitFor();
      assert.ok((await shop.columnValues(1)).every((r) => r === 'Texas'));
      assert.equal(urlParams(shop).get('reg'), 'Texas');

      const typedAt = Date.now();
      await shop.typeIpPrefix('198.51');
      await new Promise((r) => setTimeout(r, 500)); // sleeps: the page's 1 s typing pause is real time; no call within it
      assert.equal(market.calls.some(isCall('GET', '/agents', { ip1: '198' })), false, 'not before 1 s');
      await waitForCall(market, isCall('GET', '/agents', { ip1: '198', ip2: '51', reg: 'Texas' }));
      assert.ok(Date.now() - typedAt >= 950, 'the IP prefix waits 1 s after typing');

      await shop.typeIpPrefix('300');
      await shop.page.getByText('The first part must be a number from 1 to 255').waitFor();
      await shop.typeIpPrefix('10.999');
      await shop.page.getByText('The second part must be a number from 0 to 255').waitFor();
      await waitForCall(market, isCall('GET', '/agents', { ip1: '10' }));
      await shop.emptyMessage.waitFor();
      assert.equal(await shop.emptyMessage.textContent(), NOTHING_FOUND);
      await saveScreenshot(shop.page, 'shop-desktop-empty');

      await shop.page.getByRole('button', { name: 'Clear filters' }).click();
      await shop.pageRange.filter({ hasText: 'of 15' }).waitFor();
      assert.equal(await shop.ipPrefix.inputValue(), '');

      await shop.searchRadius('78701', '10 miles');
      await waitForCall(market, isCall('GET', '/agents', { geozip: '78701', georad: '10' }));
      await shop.page.getByText('Within 10 mi of 78701').waitFor();
      await shop.chooseCountry('CA');
      await shop.searchRadius('m5h', '50 miles');
      await waitForCall(market, isCall('GET', '/agents', { cc: 'CA', geozip: 'M5H', georad: '50' }));
      await saveScreenshot(shop.page, 'shop-desktop-radius');
    } finally {
      await context.close();
    }
  });

  it('buys a shared proxy and a private one; success closes itself and reloads balance, leases and list', async () => {
    const { context, shell, shop, market, api } = await openShop();
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shop.waitForRows();
      // Row 3 is agent-3, which two customers share already: Shared is offered first.
      await shop.selectRow(3);
      assert.equal(await shop.sidebar.getByRole('radio', { name: /^Shared/ }).isChecked(), true);
      assert.equal(await shop.sidebar.getByRole('radio', { name: /^Private/ }).isDisabled(), true);
      const dialog = await shop.buyFromSidebar();
      await dialog.getByText('The proxy is leased for 24 hours.').waitFor();
      // The rules' note first, then the rule the server applies.
      assert.equal(
        await dialog.getByTestId('purchase-refund-note').textContent(),
        `Note: if 40% or more of SOCKS requests through the purchased proxy fail, its price is refunded to the balance automatically. ${AUTO_REFUND_RULE_SHORT}`,
      );
      await saveScreenshot(shop.page, 'shop-desktop-confirm');
      const callsBefore = market.calls.length;
      const requestsBefore = api.requests.length;
      await shop.confirmPurchase();
      await shop.waitForPurchaseSuccess();
      const post = await waitForCall(market, isCall('POST', '/leases'));
      assert.deepEqual(post.body, { agentID: 'agent-3', expPriceC: 120, probe: true, exc: false });
      await shell.waitForBalance('$11.14');
      const after = market.calls.slice(callsBefore).map((c) => `${c.method} ${c.path}`);
      // What is on screen reloads at once; leases and payments when next shown (their keys are invalidated).
      assert.ok(after.includes('GET /agents'), 'the list reloads');
      const account = api.requests.slice(requestsBefore).filter((r) => r.path === '/accounts/my');
      assert.ok(account.length > 0, 'the account reloads');

      // Row 0 has no lease: Private first, at the private price.
      await shop.selectRow(0);
      assert.equal(await shop.sidebar.getByRole('radio', { name: /^Private/ }).isChecked(), true);
      await shop.buyFromSidebar('Private');
      await shop.confirmPurchase();
      await shop.waitForPurchaseSuccess();
      const posts = market.calls.filter(isCall('POST', '/leases'));
      assert.deepEqual(posts[1]?.body, { agentID: 'agent-0', expPriceC: 250, probe: true, exc: true });
      await shell.waitForBalance('$8.64');
      await shop.page.getByRole('tab', { name: 'My Proxies' }).click();
      await shop.page.getByTestId('lease-row').nth(1).waitFor();
    } finally {
      await context.close();
    }
  });

  it('every purchase failure dialog of rules §8', async () => {
    const { context, shell, shop, market } = await openShop();
    const attempt = async (answer: { status: number; body?: unknown }, title: string) => {
      market.purchaseAnswers.push(answer);
      await shop.buyFromSidebar();
      await shop.confirmPurchase();
      const dialog = shop.purchaseDialog(title);
      await dialog.waitFor();
      return dialog;
    };
    const dismiss = async (dialog: ReturnType<ShopPage['purchaseDialog']>) => {
      await dialog.getByRole('button', { name: 'OK' }).click();
      await dialog.waitFor({ state: 'hidden' });
    };
    try {
      await shell.open(app.baseUrl, '/', fakeAccessToken());
      await shop.waitForRows();
      await shop.selectRow(0);

      const agent = market.agents.find((a) => a.id === 'agent-0')!;
      const detailCalls = () => market.calls.filter(isCall('GET', '/agents/agent-0')).length;
      const before = detailCalls();
      agent.priceExcC = 300 as typeof agent.priceExcC;
      let dialog = await attempt({ status: 409, body: { errorCode: 'priceChanged' } }, TITLES.priceChanged);
      await saveScreenshot(shop.page, 'shop-desktop-price-changed');
      await dismiss(dialog);
      await shop.sidebar.getByRole('button', { name: 'Buy Proxy for $3.00' }).waitFor();
      assert.ok(detailCalls() > before, 'the selected proxy is reloaded');

      const changes = { errorCode: 'agentInfoChanged', changes: ['ip', 'score'] };
      dialog = await attempt({ status: 409, body: changes }, TITLES.infoChanged);
      assert.deepEqual(await dialog.getByTestId('changed-parameters').locator('li').allInnerTexts(), [
        'IP Address',
        'IP Score',
      ]);
      await dismiss(dialog);

      dialog = await attempt(
        { status: 409, body: { errorCode: 'agentAlreadyLeased' } },
        TITLES.alreadyLeased,
      );
      await dialog.getByText('This proxy is currently purchased and unavailable.').waitFor();
      await dismiss(dialog);

      dialog = await attempt({ status: 409, body: { errorCode: 'agentNotFound' } }, TITLES.offline);
      await dialog.getByText('This proxy is currently offline.').waitFor();
      await dismiss(dialog);

      dialog = await attempt({ status: 500, body: { error: 'INTERNAL' } }, TITLES.failed);
      await dialog.getByText(/try again or contact support/).waitFor();
      await dismiss(dialog);
      assert.equal(await shop.page.getByTestId('state-error').count(), 0, 'no global error screen');

      dialog = await attempt({ status: 402, body: { error: 'PAYMENT_REQUIRED' } }, TITLES.notEnoughFunds);
      await saveScreenshot(shop.page, 'shop-desktop-not-enough-funds');
      await dialog.getByRole('button', { name: 'Add Funds' }).click();
      await shop.page.waitForURL((u) => u.pathname === '/payments');

      // Back to a fresh shop (what the payments screen does is not this journey's business).
      await shell.open(app.baseUrl, '/');
      await shop.waitForRows();
      await shop.selectRow(0);
      dialog = await attempt({ status: 409, body: { errorCode: 'probeErrAgent' } }, TITLES.testFailed);
      await saveScreenshot(shop.page, 'shop-desktop-not-responding');
      await dialog.getByRole('button', { name: 'Buy Anyway' }).click();
      await shop.waitForPurchaseSuccess();
      const posts = market.calls
        .filter(isCall('POST', '/leases'))
        .map((c) => (c.body as { probe: boolean }).probe);
      assert.deepEqual(posts.slice(-2), [true, false], 'bought again without the probe');
    } finally {
      await context.close();
    }
  });
});

describe('phone shop (390 px)', () => {
  it('cards, Show more, the Filter page, proxy detail tabs, Confirm Purchase, then My Proxies', async () => {
    const { context, shell, shop, market } = await openShop({ viewport: PHONE });
    try {
      await shell.open(app.baseUrl, '/shop', fakeAccessToken());
      await shop.waitForCards();
      assert.equal(await shop.cards.count(), 10);
      await shop.showMore();
      await shop.cards.nth(14).waitFor();
      assert.equal(await shop.page.getByRole('button', { name: 'Show more' }).count(), 0);
      await saveScreenshot(shop.page, 'shop-phone');

      await shop.openFilterPage();
      assert.equal(
        await shop.cleanliness.getAttribute('aria-valuenow'),
        '6',
        'Cleanliness starts at 6 (rules §9)',
      );
      await shop.chooseAnyCleanliness();
      await shop.pickSegment('Region', 'Texas');
      await shop.chooseRadio('Type', 'Shared');
      await saveScreenshot(shop.page, 'shop-phone-filter');
      await shop.applyFilter();
      await shop.page.waitForURL((u) => u.pathname === '/shop' && u.searchParams.get('reg') === 'Texas');
      assert.equal(urlParams(shop).get('type'), 'shared');
      await waitForCall(market, isCall('GET', '/agents', { reg: 'Texas', leases: 'some' }));
      await shop.waitForCards();
      assert.ok((await shop.cards.allInnerTexts()).every((t) => t.includes(', TX') && t.includes('of 4')));

      await shop.openFilterPage();
      assert.equal(await shop.page.getByRole('combobox', { name: 'Region' }).inputValue(), 'Texas');
      await shop.page.getByRole('button', { name: 'Reset' }).click();
      const region = shop.page.getByRole('combobox', { name: 'Region' });
      await waitFor(async () => (await region.inputValue()) === '', {
        timeoutMs: 10_000,
        what: 'Reset clears the region',
      });
      assert.equal(await shop.page.getByRole('radio', { name: 'Any' }).first().isChecked(), true);
      await shop.applyFilter();
      await shop.waitForCards();

      await shop.openCard(0);
      assert.match((await shop.page.getByTestId('agent-info').innerText()) ?? '', /Uptime\s+3d/);
      // Each panel shows 'Loading…' until its check's answer is in.
      await (await shop.openDetailTab('IP Score')).getByText(/No score check yet/).waitFor();
      await (await shop.openDetailTab('Speed')).getByText(/Not tested yet/).waitFor();
      await shop.openDetailTab('Blacklists');
      await saveScreenshot(shop.page, 'shop-phone-detail');
      await shop.buyOnDetailPage('Private');
      assert.equal(urlParams(shop).get('type'), 'private');
      await saveScreenshot(shop.page, 'shop-phone-confirm');
      await shop.confirmOnPage();
      await shop.waitForPurchaseSuccess();
      await shop.page.waitForURL((u) => u.pathname === '/my');
      await shop.page.getByTestId('lease-card').waitFor();
      const post = await waitForCall(market, isCall('POST', '/leases'));
      assert.equal((post.body as { exc: boolean }).exc, true);
    } finally {
      await context.close();
    }
  });

  it('a refusal on the Confirm Purchase page shows its dialog and stays there', async () => {
    const { context, shell, shop, market } = await openShop({ viewport: PHONE });
    try {
      market.purchaseAnswers.push({ status: 409, body: { errorCode: 'agentAlreadyLeased' } });
      await shell.open(app.baseUrl, '/confirm-purchase?agent=agent-0&type=private', fakeAccessToken());
      await shop.page.getByTestId('purchase-terms').waitFor();
      await shop.confirmOnPage();
      const dialog = shop.purchaseDialog(TITLES.alreadyLeased);
      await dialog.waitFor();
      await saveScreenshot(shop.page, 'shop-phone-already-purchased');
      await dialog.getByRole('button', { name: 'OK' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(new URL(shop.page.url()).pathname, '/confirm-purchase');
    } finally {
      await context.close();
    }
  });
});
