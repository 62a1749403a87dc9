/**
 * The shop and the purchase on the whole product with the demo proxy network, as `npm start` runs it
 * (startStack with `network`: one gateway node, 60 real agents over real tunnels, the other demo
 * customers' shared leases): the demo customer filters the shop, buys a shared proxy, copies its
 * connection string from My Proxies and `curl --socks5-hostname` fetches a loopback page through it;
 * the same purchase on a 390 px phone; and every purchase failure dialog, each caused for real: the
 * operator's price list changed through the staff API, another customer buying the agent, an agent
 * that hangs (its tunnel up, nothing answered), one switched off, one whose exit moved, and a
 * customer whose balance is below the price.
 *
 * Agents are picked by city (the shop hides every IP's last octet, so three IPs look alike): each
 * journey uses its own, so their order does not matter. The demo identities are in
 * apps/devnet/src/demo-identities.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS, type Endpoint } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { ShopPage, PURCHASE_DIALOG_TITLES as TITLES } from './pages/ShopPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { type LoopbackPage, startLoopbackPage } from './support/loopback.ts';
import { stackSuite } from './support/stackSuite.ts';
import {
  type CallArgs,
  centsOf,
  openStackVisit,
  type StackUser,
  type StackVisit,
  shownBalanceC,
  signInOnStack,
  stackApi,
  usd,
  waitUntil,
} from './support/stackVisit.ts';

const run = promisify(execFile);
const LOOPBACK_PAGE = 'hello through a leased proxy';

let browser: Browser;
let stack: TestStack;
let target: LoopbackPage;
let targetUrl: string;

stackSuite(
  { label: 'web_e2e_shop', network: {} },
  (s, b) => {
    stack = s;
    browser = b;
  },
  {
    first: async () => {
      target = await startLoopbackPage(LOOPBACK_PAGE);
      targetUrl = target.url;
    },
    last: () => target?.close(),
  },
);

interface Visit extends StackVisit {
  shop: ShopPage;
  my: MyProxiesPage;
}

/** A browser context with the Terms accepted and the clipboard allowed (Copy connection string). */
async function newVisit(viewport = DESKTOP): Promise<Visit> {
  const v = await openStackVisit(browser, stack, { viewport, clipboard: true });
  return { ...v, shop: new ShopPage(v.page), my: new MyProxiesPage(v.page) };
}

const signIn = (v: Visit, email: string, password: string, path = '/') =>
  signInOnStack(v, stack, { email, password }, path);
const api = <E extends Endpoint>(who: StackUser, e: E, ...call: CallArgs<E>) =>
  stackApi(stack, who, e, ...call);
const customer = () => stack.demo.customer;
const admin = () => stack.demo.admin;

/** Desktop shop: the US list on one page (50 rows), the row of `city` selected in the sidebar. */
async function selectInUsShop(v: Visit, city: string): Promise<void> {
  await v.shop.waitForRows();
  if ((await v.page.getByRole('combobox', { name: 'Rows per page:' }).inputValue()) !== '50') {
    await v.shop.setRowsPerPage(50);
    await waitUntil(async () => (await v.shop.rows.count()) > 10, 'the US list on one page');
  }
  await v.shop.selectRow(city);
  await v.shop.sidebar
    .getByText(new RegExp(`^${city}, `))
    .first()
    .waitFor();
}

describe('the shop on the whole product with the demo network', () => {
  it('filters by country, region and connection, buys a shared proxy and curl fetches a page through it', async () => {
    const v = await newVisit();
    try {
      await signIn(v, customer().email, customer().password);
      await v.shell.waitForBalance('$50.00');
      await v.shop.waitForRows();
      // The chips count what the API has on sale, and US is the default.
      const totals = (await api(customer(), ENDPOINTS.getCountryTotals, { query: { all: 'true' } })).ok();
      for (const cc of ['US', 'GB', 'AE', 'CA', 'IT', 'CN']) {
        await waitUntil(async () => (await v.shop.chipCount(cc)) !== '…', `the ${cc} count`);
        assert.equal(await v.shop.chipCount(cc), String(totals.countries[cc] ?? 0), cc);
      }
      assert.equal(await v.shop.chip('US').getAttribute('aria-pressed'), 'true');
      assert.equal(await v.shop.total.textContent(), `${totals.countries.US} proxies in United States`);
      assert.ok(
        (await v.shop.columnValues(0)).every((ip) => /^\d+\.\d+\.\d+\.\*\*\*$/.test(ip)),
        'the last octet of every IP shows as asterisks',
      );
      await saveScreenshot(v.page, 'shop-stack-desktop');

      await v.shop.chooseCountry('CA');
      await v.shop.total.filter({ hasText: `${totals.countries.CA} proxies in Canada` }).waitFor();
      await v.shop.showFilters();
      await v.shop.pickSegment('Region', 'Ontario');
      await v.shop.chooseFilter('Conn', 'Wifi');
      await v.shop.total.filter({ hasText: '2 proxies in Canada' }).waitFor();
      await waitUntil(async () => (await v.shop.rows.count()) === 2, 'the two Wifi proxies in Ontario');
      assert.deepEqual(await v.shop.columnValues(1), ['Ontario', 'Ontario']);
      assert.deepEqual(await v.shop.columnValues(7), ['Wifi', 'Wifi']);
      const params = new URL(v.page.url()).searchParams;
      assert.equal(params.get('reg'), 'Ontario');
      assert.equal(params.get('conn'), 'wifi');
      await saveScreenshot(v.page, 'shop-stack-desktop-filtered');

      // Two other customers share one of them already (so it is not New): Shared is offered first,
      // Private not at all.
      const sharedRow = await v.shop.rowCells(v.shop.rows.filter({ hasText: '2 of 4' }));
      assert.equal(sharedRow[8], 'No', 'sold within 30 days: not New');
      const otherRow = await v.shop.rowCells(v.shop.rows.filter({ hasText: 'Private' }));
      assert.equal(otherRow[8], 'Yes');
      await v.shop.selectRow('2 of 4');
      const sharedOption = v.shop.sidebar.getByRole('radio', { name: /^Shared/ });
      assert.equal(await sharedOption.isChecked(), true);
      assert.equal(await v.shop.sidebar.getByRole('radio', { name: /^Private/ }).isDisabled(), true);
      const priceC = centsOf((await v.shop.sidebarBuyButton.textContent()) ?? '');
      const dialog = await v.shop.buyFromSidebar();
      await dialog.getByText('The proxy is leased for 24 hours.').waitFor();
      await saveScreenshot(v.page, 'shop-stack-desktop-confirm');
      await v.shop.confirmPurchase();
      await v.shop.waitForPurchaseSuccess();
      await v.shell.waitForBalance(usd(5000 - priceC));
      await v.shop.sidebar.getByText('Select a proxy in the table to see its details.').waitFor();

      // The list reloads: the proxy is now shared by three, and its buyer sees its whole address.
      const leases = (await api(customer(), ENDPOINTS.listLeases)).ok();
      const lease = leases.leases[0];
      assert.ok(lease && !lease.exc, 'a shared lease');
      const ip = lease.currentInfo.ip;
      await v.shop.rows.filter({ hasText: ip }).filter({ hasText: '3 of 4' }).waitFor();

      await v.page.getByRole('tab', { name: 'My Proxies' }).click();
      await v.my.waitForRows();
      await v.my.selectLease(ip);
      const socks = await v.my.openTab('Socks Auth');
      const ports = await v.my.socksPorts();
      assert.deepEqual(ports, lease.socks.ports.map(String), 'the ports the lease answer names');
      assert.equal(await v.my.password.textContent(), '••••••••••');
      await saveScreenshot(v.page, 'shop-stack-desktop-my-proxies');
      const copied = await v.my.copiedConnectionString();
      assert.match(copied, new RegExp(`^socks5h://[^:@]+:[^:@]+@127\\.0\\.0\\.1:${ports[0]}$`));
      assert.ok(await socks.getByText(lease.socks.user).isVisible());

      // Pasted as it is, through the gateway and the agent's tunnel to a page on this machine.
      const { stdout } = await run('curl', [
        '--silent',
        '--show-error',
        '--max-time',
        '20',
        '--socks5-hostname',
        copied,
        targetUrl,
      ]);
      assert.equal(stdout, LOOPBACK_PAGE);
      assert.ok(target.requests.includes('GET /'), 'the loopback page was asked for');
    } finally {
      await v.context.close();
    }
  });

  it('a 390 px phone buys through the cards, the Filter page, the proxy detail and Confirm Purchase', async () => {
    const v = await newVisit(PHONE);
    try {
      await signIn(v, customer().email, customer().password);
      await v.page.waitForURL((u) => u.pathname === '/shop');
      await v.shop.waitForCards();
      assert.equal(await v.shop.cards.count(), 10, 'ten cards, then Show more');
      await v.shop.showMore();
      await waitUntil(async () => (await v.shop.cards.count()) > 10, 'Show more adds cards');
      await saveScreenshot(v.page, 'shop-stack-phone');

      await v.shop.openFilterPage();
      await v.shop.chooseAnyCleanliness();
      await v.shop.pickSegment('Region', 'MA');
      await v.shop.chooseRadio('Type', 'Private');
      await saveScreenshot(v.page, 'shop-stack-phone-filter');
      await v.shop.applyFilter();
      await v.page.waitForURL((u) => u.pathname === '/shop' && u.searchParams.get('reg') === 'MA');
      await v.shop.total.filter({ hasText: '1 proxy in United States' }).waitFor();
      assert.equal(await v.shop.cards.count(), 1);
      assert.match(await v.shop.cards.first().innerText(), /Boston, MA 02108/);

      await v.shop.openCard('Boston');
      const info = await v.page.getByTestId('agent-info').innerText();
      assert.match(info, /City\s+Boston/);
      assert.match(info, /IP Address\s+\d+\.\d+\.\d+\.\*\*\*/);
      assert.match(info, /Domain or IP\s+\*\*\*\.baystatebroadband\.example/, 'the host name masked alike');
      await saveScreenshot(v.page, 'shop-stack-phone-detail');
      await v.shop.buyOnDetailPage('Private');
      await v.shell.screenTitle.filter({ hasText: 'Confirm Purchase' }).waitFor();
      const priceC = centsOf((await v.page.getByTestId('confirm-type').textContent()) ?? '');
      const before = await shownBalanceC(v);
      await saveScreenshot(v.page, 'shop-stack-phone-confirm');
      await v.shop.confirmOnPage();
      await v.shop.waitForPurchaseSuccess();
      await v.page.waitForURL((u) => u.pathname === '/my');
      await v.my.waitForCards();
      await v.shell.waitForBalance(usd(before - priceC));
      const leases = (await api(customer(), ENDPOINTS.listLeases)).ok();
      const lease = leases.leases.find((l) => l.currentInfo.loc.city === 'Boston');
      assert.ok(lease?.exc, 'a private lease on the Boston proxy');
      await v.my.cards.filter({ hasText: lease.currentInfo.ip }).waitFor();
      await saveScreenshot(v.page, 'shop-stack-phone-my-proxies');

      await v.my.openCard(lease.currentInfo.ip);
      await v.my.openTab('Socks Auth');
      assert.equal((await v.my.socksPorts()).length, 4);
      await saveScreenshot(v.page, 'shop-stack-phone-lease');
    } finally {
      await v.context.close();
    }
  });

  it('every purchase failure dialog, each caused for real', async () => {
    const network = stack.network;
    assert.ok(network, 'the stack runs the demo network');
    const v = await newVisit();
    try {
      await signIn(v, customer().email, customer().password);

      // Price Changed: the operator raises every price through the staff API while the page shows the old one.
      await selectInUsShop(v, 'Atlanta');
      const shownC = centsOf((await v.shop.sidebarBuyButton.textContent()) ?? '');
      const rules = (await api(admin(), ENDPOINTS.getPricingRules)).ok();
      // A rule as PUT takes it has no position: the list's order is the position.
      const saved = rules.rules.map(({ position: _, ...rule }) => rule);
      const raised = saved.map((r) => ({ ...r, priceExcC: r.priceExcC + 100, priceShrC: r.priceShrC + 100 }));
      try {
        assert.equal(
          (await api(admin(), ENDPOINTS.replacePricingRules, { body: { rules: raised } })).status,
          200,
        );
        await v.shop.buySelected(TITLES.priceChanged);
        await saveScreenshot(v.page, 'shop-stack-price-changed');
        await v.shop.dismissPurchaseDialog(TITLES.priceChanged);
        // The proxy is reloaded with the new price, which buys it.
        await v.shop.sidebar.getByRole('button', { name: `Buy Proxy for ${usd(shownC + 100)}` }).waitFor();
        const before = await shownBalanceC(v);
        await v.shop.buyFromSidebar();
        await v.shop.confirmPurchase();
        await v.shop.waitForPurchaseSuccess();
        await v.shell.waitForBalance(usd(before - shownC - 100));
      } finally {
        assert.equal(
          (await api(admin(), ENDPOINTS.replacePricingRules, { body: { rules: saved } })).status,
          200,
        );
      }

      // Already Purchased: another customer buys the proxy private through the API while the page shows it.
      await selectInUsShop(v, 'Seattle');
      const rival = { email: 'rival@example.com', password: 'a rival password' };
      const rivalId = await stack.addCustomer(rival.email, rival.password);
      const credit = await api(admin(), ENDPOINTS.updateAccount, {
        params: { id: rivalId },
        body: { balanceDeltaC: 2000, reason: 'e2e seed' },
      });
      assert.equal(credit.status, 200);
      const seattle = (await api(rival, ENDPOINTS.getAgent, { params: { id: 'demo-27' } })).ok();
      assert.equal(seattle.loc.city, 'Seattle');
      const bought = await api(rival, ENDPOINTS.createLease, {
        body: { agentID: 'demo-27', expPriceC: seattle.priceExcC, probe: true, exc: true },
      });
      assert.equal(bought.status, 201);
      let dialog = await v.shop.buySelected(TITLES.alreadyLeased);
      await dialog.getByText('This proxy is currently purchased and unavailable.').waitFor();
      await saveScreenshot(v.page, 'shop-stack-already-purchased');
      await v.shop.dismissPurchaseDialog(TITLES.alreadyLeased);
      // Leased private, it is off sale: the list, reloaded, no longer has it.
      await waitUntil(
        async () => (await v.shop.rows.filter({ hasText: 'Seattle' }).count()) === 0,
        'Seattle gone',
      );

      // The proxy is not responding: the agent hangs (tunnel up, nothing answered), so the probe times out.
      await selectInUsShop(v, 'Houston');
      const houstonC = centsOf((await v.shop.sidebarBuyButton.textContent()) ?? '');
      const thaw = network.stallAgent('demo-21');
      try {
        dialog = await v.shop.buySelected(TITLES.testFailed);
        await dialog.getByText(/You can still buy it/).waitFor();
        await saveScreenshot(v.page, 'shop-stack-not-responding');
        const before = await shownBalanceC(v);
        // Buy Anyway: the purchase without the probe.
        await dialog.getByRole('button', { name: 'Buy Anyway' }).click();
        await v.shop.waitForPurchaseSuccess();
        await v.shell.waitForBalance(usd(before - houstonC));
      } finally {
        thaw();
      }
      const mine = (await api(customer(), ENDPOINTS.listLeases)).ok();
      assert.ok(
        mine.leases.some((l) => l.agentId === 'demo-21'),
        'bought without the probe',
      );

      // Proxy offline: the agent is switched off while the page shows it.
      await selectInUsShop(v, 'Stamford');
      await network.stopAgent('demo-09');
      await waitUntil(
        async () => !(await api(customer(), ENDPOINTS.getAgent, { params: { id: 'demo-09' } })).ok().online,
        'the gateway marks the stopped agent offline',
      );
      dialog = await v.shop.buySelected(TITLES.offline);
      await dialog.getByText('This proxy is currently offline.').waitFor();
      await v.shop.dismissPurchaseDialog(TITLES.offline);

      // Proxy Parameters Changed: the carrier re-addresses the agent; the purchase's probe sees the new exit.
      await selectInUsShop(v, 'Austin');
      network.moveExit('demo-19', {
        ip: '198.51.100.250',
        loc: {
          cc: 'US',
          reg: 'TX',
          city: 'Dallas',
          zip: '75201',
          isp: 'Lonestar Broadband',
          mob: false,
          lat: 32.7904,
          lon: -96.8044,
          host: 'dyn-198-51-100-250.lonestarbroadband.example',
        },
      });
      dialog = await v.shop.buySelected(TITLES.infoChanged);
      assert.deepEqual(await dialog.getByTestId('changed-parameters').locator('li').allInnerTexts(), [
        'IP Address',
        'Geolocation',
        'DNS Hostname',
      ]);
      await saveScreenshot(v.page, 'shop-stack-parameters-changed');
      await v.shop.dismissPurchaseDialog(TITLES.infoChanged);
      // The selected proxy is reloaded as it is now.
      await v.shop.sidebar.getByRole('heading', { name: '198.51.100.***' }).waitFor();
      await v.shop.sidebar.getByText('Dallas, TX').first().waitFor();
    } finally {
      await v.context.close();
    }
  });

  it('Not Enough Funds for a customer whose balance is below the price, with Add Funds', async () => {
    const poor = { email: 'short.of.funds@example.com', password: 'a short password' };
    const id = await stack.addCustomer(poor.email, poor.password);
    assert.equal(
      (
        await api(admin(), ENDPOINTS.updateAccount, {
          params: { id },
          body: { balanceDeltaC: 100, reason: 'e2e seed' },
        })
      ).status,
      200,
    );
    const v = await newVisit();
    try {
      await signIn(v, poor.email, poor.password);
      await v.shell.waitForBalance('$1.00');
      await selectInUsShop(v, 'Miami');
      assert.ok(
        centsOf((await v.shop.sidebarBuyButton.textContent()) ?? '') > 100,
        'the price is above $1.00',
      );
      const dialog = await v.shop.buySelected(TITLES.notEnoughFunds);
      await saveScreenshot(v.page, 'shop-stack-not-enough-funds');
      await dialog.getByRole('button', { name: 'Add Funds' }).click();
      await v.page.waitForURL((u) => u.pathname === '/payments');
      await v.shell.waitForBalance('$1.00');
      const leases = (await api(poor, ENDPOINTS.listLeases)).ok();
      assert.deepEqual(leases.leases, [], 'nothing was sold');
    } finally {
      await v.context.close();
    }
  });
});
