/**
 * The lease lifecycle on the whole product with the demo proxy network (issue 19), as `npm start`
 * runs it: a static proxy bought in the static shop carries real traffic that the lease detail
 * charts by hour and downloads as CSV; a lease in its last 5 hours renewed from the desktop popup at
 * the exact renewal price; on a phone, a lease whose device was switched off refunded from its
 * detail; the history's search, dates and Buy Again, both for a
 * proxy that is gone and for a static proxy refunded by staff that is on sale again.
 *
 * The leases the journeys do not buy through the screens are bought through the market API as the
 * demo customer; `stack.ageLease` moves one back in time, as if it had been bought 20 hours ago.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ENDPOINTS, type Endpoint, errorCodeOf, LEASE_TRAFFIC_CSV_HEADER, type TLease } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import { waitFor } from '@pm/testkit';
import type { Browser } from 'playwright-core';
import { LeaseHistoryPage, UNAVAILABLE_TEXT } from './pages/LeaseHistoryPage.ts';
import { LeaseLifecycleDialogs, RENEW_MESSAGES } from './pages/LeaseLifecycleDialogs.ts';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { StaticShopPage } from './pages/StaticShopPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { type LoopbackPage, refusedLoopbackUrl, startLoopbackPage } from './support/loopback.ts';
import { stackSuite } from './support/stackSuite.ts';
import {
  type CallArgs,
  openStackVisit,
  type StackVisit,
  shownBalanceC,
  signInOnStack,
  stackApi,
  usd,
  waitUntil,
} from './support/stackVisit.ts';

const run = promisify(execFile);
const HOUR_MS = 3_600_000;
const PAGE = 'hello through a leased proxy';

let browser: Browser;
let stack: TestStack;
let target: LoopbackPage;
let targetUrl: string;
/** A loopback port where nothing listens: requests to it fail at the agent. */
let refusedUrl: string;

stackSuite(
  { label: 'web_e2e_lifecycle', network: {} },
  (s, b) => {
    stack = s;
    browser = b;
  },
  {
    first: async () => {
      target = await startLoopbackPage(PAGE);
      targetUrl = target.url;
      refusedUrl = await refusedLoopbackUrl();
    },
    last: () => target?.close(),
  },
);

const customer = () => stack.demo.customer;
const api = <E extends Endpoint>(e: E, ...call: CallArgs<E>) => stackApi(stack, customer(), e, ...call);

interface Visit extends StackVisit {
  my: MyProxiesPage;
  dialogs: LeaseLifecycleDialogs;
}

async function visit(path: string, viewport?: { width: number; height: number }): Promise<Visit> {
  const v = await openStackVisit(browser, stack, viewport ? { viewport } : {});
  await signInOnStack(v, stack, customer(), path);
  const my = new MyProxiesPage(v.page);
  return { ...v, my, dialogs: new LeaseLifecycleDialogs(v.page, my.detail) };
}

/** `curl` through the lease's SOCKS5 credentials (its first port) to `url`: its exit code (0 when the page came back) and what it said. */
async function curlThrough(lease: TLease, url: string): Promise<{ code: number; said: string }> {
  const { user, pwd, ip, ports } = lease.socks;
  const proxy = `socks5h://${user}:${pwd}@${ip}:${ports[0]}`;
  try {
    await run('curl', ['-sS', '--max-time', '5', '--proxy', proxy, url]);
    return { code: 0, said: '' };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? -1, said: `${proxy}: ${err.stderr ?? String(e)}` };
  }
}

/** Asserts that a page comes back through the lease (within 2 s: the gateway learns a new lease by NOTIFY). */
async function assertThrough(lease: TLease, url = targetUrl): Promise<void> {
  // One curl per try: the journey counts the requests the gateway meters.
  let r = { code: -1, said: 'no try' };
  await waitFor(
    async () => {
      r = await curlThrough(lease, url);
      return r.code === 0;
    },
    { timeoutMs: 2000, intervalMs: 100, what: 'a page through the lease' },
  ).catch(() => {}); // the assertion below says what the last try said
  assert.equal(r.code, 0, r.said);
}

/** The caller's running lease on `ip`. */
async function leaseOn(ip: string): Promise<TLease> {
  const res = (await api(ENDPOINTS.listLeases, { query: { cursor: 0, limit: 100 } })).ok();
  const lease = res.leases.find((l) => l.currentInfo.ip === ip);
  assert.ok(lease, `a running lease on ${ip}`);
  return lease;
}

/** Buys, through the API, a private lease on an unleased online agent of `cc` (skipping `taken`). */
async function buyPrivate(cc: string, taken: Set<string>): Promise<TLease> {
  const list = (await api(ENDPOINTS.listAgents, { query: { cc, leases: 'none', limit: 100 } })).ok();
  const agent = list.agents.find((a) => a.online && !taken.has(a.id));
  assert.ok(agent, `an unleased agent in ${cc}`);
  taken.add(agent.id);
  const res = await api(ENDPOINTS.createLease, {
    body: { agentID: agent.id, expPriceC: agent.priceExcC, exc: true },
  });
  return res.ok();
}

/** Switches the lease's device off and waits until the API offers its refund. */
async function switchOff(lease: TLease): Promise<void> {
  await stack.network!.stopAgent(lease.agentId);
  await waitUntil(async () => (await leaseOn(lease.currentInfo.ip)).stats.refundable, 'refundable', 20_000);
}

const taken = new Set<string>();

describe('the lease lifecycle on the whole product with the demo network', () => {
  it('a static proxy bought in the static shop carries traffic the lease detail charts and downloads', async () => {
    const v = await visit('/static');
    try {
      const shop = new StaticShopPage(v.page);
      await shop.chooseCountry('Germany');
      const offer = (
        await api(ENDPOINTS.listStaticAgents, { query: { cc: 'DE', cursor: 0, limit: 10 } })
      ).ok().list[0];
      assert.ok(offer, 'a static agent on sale in Germany');
      taken.add(offer.id);
      const before = await shownBalanceC(v);
      await shop.buy(offer.ip);
      await shop.confirm();
      await shop.dialog('Purchase Successful').waitFor();
      await v.shell.waitForBalance(usd(before - offer.priceC));

      // Real traffic: four pages and one request to a port that refuses (20% failed: no auto-refund).
      const lease = await leaseOn(offer.ip);
      assert.equal(lease.static, true);
      for (let i = 0; i < 4; i++) await assertThrough(lease);
      assert.notEqual((await curlThrough(lease, refusedUrl)).code, 0);
      await waitUntil(async () => {
        const t = (await api(ENDPOINTS.getLeaseTraffic, { params: { id: lease.id } })).ok();
        return t.hours.reduce((n, h) => n + h.reqs, 0) === 5;
      }, 'the gateway metered five requests');

      await v.shell.page.goto(new URL('/my', stack.webUrl).toString());
      await v.my.waitForRows();
      await v.my.selectLease(offer.ip);
      await v.dialogs.trafficChart.waitFor();
      // Five requests in this hour (or two, at an hour's turn), one of them failed.
      assert.match(
        (await v.dialogs.trafficTotals.textContent()) ?? '',
        /^(1 hour|2 hours) · 5 requests · 1 failed · /,
      );
      await v.dialogs.trafficChart.scrollIntoViewIfNeeded();
      await saveScreenshot(v.page, 'lifecycle-stack-traffic');
      const csv = await readFile((await (await v.dialogs.downloadCsv()).path())!, 'utf8');
      const [header, ...rows] = csv.trim().split(/\r?\n/);
      assert.equal(header, LEASE_TRAFFIC_CSV_HEADER);
      const sums = rows
        .map((r) => r.split(',').map(Number))
        .reduce((s, c) => s.map((x, i) => x + (c[i] ?? 0)));
      assert.deepEqual([sums[1], sums[2]], [5, 1], 'requests and failures summed over the hours');
      assert.ok((sums[3] ?? 0) > 4 * PAGE.length, 'the pages came in');

      // A used static lease cannot be refunded: the button says so, and the staff route refuses it.
      await v.dialogs.refundButton.and(v.page.locator('[disabled]')).waitFor();
      const staff = await stackApi(stack, stack.demo.admin, ENDPOINTS.staffRefundLease, {
        params: { id: lease.id },
      });
      assert.equal(staff.status, 409, JSON.stringify(staff.body));
      assert.equal(errorCodeOf(ENDPOINTS.staffRefundLease, staff.body), 'notRefundable');
    } finally {
      await v.context.close();
    }
  });

  it('renews a lease in its last 5 hours from the desktop popup at the renewal price', async () => {
    const lease = await buyPrivate('GB', taken);
    await stack.ageLease(lease.id, 20 * HOUR_MS);
    const v = await visit('/my');
    try {
      await v.my.waitForRows();
      await v.my.selectLease(lease.currentInfo.ip);
      const before = await shownBalanceC(v);
      // Bought for 24 hours: the renewal price is the purchase price.
      const confirm = await v.dialogs.renew();
      assert.match(confirm, new RegExp(`another 24 hours for \\${usd(lease.purchasePriceC)}`));
      await v.dialogs.close(await v.dialogs.renewMessage(RENEW_MESSAGES.success));
      await v.shell.waitForBalance(usd(before - lease.purchasePriceC));
      const renewed = await leaseOn(lease.currentInfo.ip);
      assert.equal(Date.parse(renewed.until) - Date.parse(lease.until), 4 * HOUR_MS, '20 h back, 24 h on');
      assert.equal(renewed.renewable, false);
      await v.dialogs.renewButton.and(v.page.locator('[disabled]')).waitFor();
      await assertThrough(renewed); // the renewed credentials work
    } finally {
      await v.context.close();
    }
  });

  it('on a phone, refunds a lease whose device went off from its detail, back to My Proxies', async () => {
    const lease = await buyPrivate('CA', taken);
    await assertThrough(lease);
    await switchOff(lease);
    const v = await visit('/my', PHONE);
    try {
      await v.my.waitForCards();
      await v.my.openCard(lease.currentInfo.ip);
      const before = await shownBalanceC(v);
      await v.dialogs.refund();
      await v.page.getByText('The proxy was refunded to your balance', { exact: true }).waitFor();
      await v.page.waitForURL((u) => u.pathname === '/my');
      await v.shell.waitForBalance(usd(before + lease.purchasePriceC));
      await saveScreenshot(v.page, 'lifecycle-stack-refund-phone');
      const res = (await api(ENDPOINTS.listLeases, { query: { cursor: 0, limit: 100 } })).ok();
      assert.equal(
        res.leases.some((l) => l.id === lease.id),
        false,
        'the lease has left My Proxies',
      );
    } finally {
      await v.context.close();
    }
  });

  it('the history finds ended leases by IP and dates; Buy Again says when a proxy is gone and buys one on sale', async () => {
    // A proxy that is gone (device off, refunded) and a static one refunded by staff, unused.
    const gone = await buyPrivate('US', taken);
    await switchOff(gone);
    assert.equal((await api(ENDPOINTS.refundLease, { params: { id: gone.id } })).status, 200);
    const offer = (await api(ENDPOINTS.listStaticAgents, { query: { cc: 'FR', cursor: 0, limit: 10 } })).ok()
      .list[0];
    assert.ok(offer, 'a static agent on sale in France');
    const bought = (
      await api(ENDPOINTS.leaseStaticAgent, { body: { agentID: offer.id, expPriceC: offer.priceC } })
    ).ok();
    const staff = await stackApi(stack, stack.demo.admin, ENDPOINTS.staffRefundLease, {
      params: { id: bought.id },
    });
    assert.equal(staff.status, 200, JSON.stringify(staff.body));

    const v = await visit('/my/history');
    const history = new LeaseHistoryPage(v.page);
    try {
      await history.waitForRows();
      await history.search(gone.currentInfo.ip);
      await history.pagerRange.filter({ hasText: '1–1 of 1' }).waitFor();
      assert.match(
        (await history.rows.textContent()) ?? '',
        new RegExp(gone.currentInfo.ip.replaceAll('.', '\\.')),
      );
      const found = (
        await api(ENDPOINTS.listLeaseHistory, { query: { offset: 0, limit: 10, query: gone.currentInfo.ip } })
      ).ok();
      assert.equal(found.items[0]?.refunded, true);
      await history.buyAgain(gone.currentInfo.ip);
      await history.unavailableDialog.getByText(UNAVAILABLE_TEXT).waitFor();
      await saveScreenshot(v.page, 'lifecycle-stack-history-unavailable');
      await history.unavailableDialog.getByRole('button', { name: 'Close' }).click();
      await history.unavailableDialog.waitFor({ state: 'hidden' });

      // Two days back to yesterday: nothing; then the static lease, found by its IP, bought again.
      const day = (n: number) => new Date(Date.now() - n * 86_400_000).toLocaleDateString('sv-SE');
      await history.setDate('first', day(2));
      await history.setDate('last', day(1));
      await history.emptyState.waitFor();
      await history.setDate('last', day(0));
      await history.searchButton.and(v.page.locator(':enabled')).waitFor(); // the 3 s lockout
      await history.search(offer.ip);
      await history.rows.filter({ hasText: offer.ip }).waitFor();
      const before = await shownBalanceC(v);
      await history.buyAgain(offer.ip);
      const confirm = v.page.getByRole('dialog', { name: 'Confirm Purchase' });
      await confirm.getByRole('button', { name: /^Buy Proxy for/ }).click();
      await v.page.getByRole('dialog', { name: 'Purchase Successful' }).waitFor();
      // The price is the one the sale quoted then: the blacklist sweep may have moved the clean
      // score (and so the price) since the list was read at the start.
      const again = await leaseOn(offer.ip);
      assert.equal(again.static, true);
      await v.shell.waitForBalance(usd(before - again.purchasePriceC));
    } finally {
      await v.context.close();
    }
  });
});
