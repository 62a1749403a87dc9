/**
 * The static shop and the lease lifecycle routes through the app: list filters and paging, the
 * static purchase's states (rules §4), renew/refund answer shapes, history, hourly traffic as JSON
 * and CSV, the staff refund, and that no route lets one customer reach another's lease.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ENDPOINTS,
  LEASE_TRAFFIC_CSV_HEADER,
  ZLease,
  ZLeaseHistoryResponse,
  ZRefundResult,
  ZRenewResult,
  ZStaticListResponse,
} from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let nodeId: string;
let clockMs = Date.now();
let alice: TestCustomer;
let bob: TestCustomer;

before(async () => {
  t = await createTestApp('static_routes', { payments: false, now: () => clockMs });
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, 650, 300);
  alice = await buildCustomer(t, 100_000, 'alice');
  bob = await buildCustomer(t, 500, 'bob');
  const cities = ['Berlin', 'Munich', 'Hamburg'];
  for (let i = 0; i < 12; i++) {
    await buildAgent(t.db, {
      nodeId,
      isStatic: true,
      cc: 'DE',
      ip: `198.51.${100 + (i % 2)}.${i + 1}`,
      city: cities[i % 3]!,
      isp: i % 2 === 0 ? 'Hetzner Online' : 'Deutsche Telekom',
      conn: i % 4 === 0 ? 'cell' : 'wifi',
    });
  }
  // Neither offline static agents nor ordinary ones are in the static shop.
  await buildAgent(t.db, { nodeId, isStatic: true, cc: 'DE', online: false });
  await buildAgent(t.db, { nodeId, cc: 'DE' });
});
after(async () => {
  await t?.close();
});

/** `GET /static/list/` with the query as the page's address bar writes it (refused values too). */
const staticList = (who: TestCustomer, query: string, o: { fresh?: boolean } = {}) =>
  callRouteUnchecked(t, ENDPOINTS.listStaticAgents, {
    query: Object.fromEntries(new URLSearchParams(query)),
    headers: o.fresh ? { ...who.headers, 'cache-control': 'no-cache' } : who.headers,
  });
const leaseStatic = (who: TestCustomer, agentID: string, expPriceC: number) =>
  callRoute(t, ENDPOINTS.leaseStaticAgent, {
    headers: who.headers,
    body: { agentID, expPriceC: cents(expPriceC) },
  });
/** A lease operation's parts: the lease by id, as the caller with `headers`. */
const byId = (headers: Record<string, string>, id: string) => ({ params: { id }, headers });
/** `GET /leaseHistory` with the query as written (refused values too). */
const history = (who: TestCustomer, query = '') =>
  callRouteUnchecked(t, ENDPOINTS.listLeaseHistory, {
    query: Object.fromEntries(new URLSearchParams(query)),
    headers: who.headers,
  });

describe('GET /static/list/', () => {
  test('lists the online static agents of the country with the private price, filtered and paged', async () => {
    const res = await staticList(alice, 'cc=DE&limit=10');
    assert.equal(res.statusCode, 200, res.body);
    const page = ZStaticListResponse.parse(res.json());
    assert.equal(page.total, 12);
    assert.equal(page.list.length, 10);
    assert.ok(page.list.every((a) => a.priceC === 650));
    const next = ZStaticListResponse.parse((await staticList(alice, 'cc=DE&limit=10&cursor=10')).json());
    assert.equal(next.list.length, 2);
    const berlinHetzner = ZStaticListResponse.parse(
      (await staticList(alice, 'cc=DE&city=berl&isp=hetz')).json(),
    );
    assert.equal(berlinHetzner.total, 2);
    assert.ok(berlinHetzner.list.every((a) => a.loc.city === 'Berlin' && a.loc.isp === 'Hetzner Online'));
    assert.equal(
      ZStaticListResponse.parse((await staticList(alice, 'cc=DE&ip=198.51.101.')).json()).total,
      6,
    );
    assert.equal(ZStaticListResponse.parse((await staticList(alice, 'cc=DE&conn=cell')).json()).total, 3);
    assert.equal(ZStaticListResponse.parse((await staticList(alice, 'cc=FR')).json()).total, 0);
    assert.equal((await staticList(alice, 'cc=DE&limit=7')).statusCode, 400);
  });
});

describe('POST /static/lease', () => {
  test('leases private for 24 hours; then the agent is taken; price change, funds and unknown agents refused', async () => {
    const list = ZStaticListResponse.parse((await staticList(alice, 'cc=DE&limit=50')).json());
    const target = list.list[0]!;
    assert.equal((await leaseStatic(alice, target.id, 600)).json().errorCode, 'priceChanged');
    const poor = await leaseStatic(bob, target.id, 650);
    assert.equal(poor.statusCode, 402);
    const res = await leaseStatic(alice, target.id, 650);
    assert.equal(res.statusCode, 201, res.body);
    const lease = ZLease.parse(res.json());
    assert.equal(lease.static, true);
    assert.equal(lease.exc, true);
    assert.equal(Date.parse(lease.until) - Date.parse(lease.start), 24 * 3600_000);
    const again = await leaseStatic(alice, target.id, 650);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().errorCode, 'agentAlreadyLeased');
    const gone = await leaseStatic(alice, 'no-such-agent', 650);
    assert.equal(gone.json().errorCode, 'agentNotFound');
    const after = ZStaticListResponse.parse((await staticList(alice, 'cc=DE&limit=50')).json());
    assert.equal(after.total, 11);
    // On sale again once the lease lapses at the service's clock: moved, not waited for. The
    // page is shared for a second (the sale cleared it, nothing since): `no-cache` reads it anew.
    clockMs += 25 * 3600_000;
    const total = async (o = {}) =>
      ZStaticListResponse.parse((await staticList(alice, 'cc=DE&limit=50', o)).json()).total;
    assert.equal(await total(), 11);
    assert.equal(await total({ fresh: true }), 12);
    clockMs -= 25 * 3600_000;
    assert.equal((await booksOf(t, bob.userId)).balanceC, 500);

    // The customer cannot refund a static lease; staff can, within the hour and unused.
    const own = await callRoute(t, ENDPOINTS.refundLease, byId(alice.headers, lease.id));
    assert.equal(own.statusCode, 400);
    assert.equal(own.json().errorCode, 'leaseNotEligible');
    assert.equal(own.json().status, 'REFUND_STATUS_INELIGIBLE');
    const forbidden = await callRoute(t, ENDPOINTS.staffRefundLease, byId(alice.headers, lease.id));
    assert.equal(forbidden.statusCode, 403);
    const staffHeaders = await t.staffAuth(newUserId('staff'));
    const staff = await callRoute(t, ENDPOINTS.staffRefundLease, byId(staffHeaders, lease.id));
    assert.equal(staff.statusCode, 200, staff.body);
    assert.equal(ZRefundResult.parse(staff.json()).refundAmountC, 650);
    const books = await booksOf(t, alice.userId);
    assert.equal(books.balanceC, 100_000);
    assert.equal(books.balanceC, books.ledgerSumC);
  });
});

describe('lease lifecycle routes', () => {
  test('renew, refund, history and traffic answer their shapes; another customer gets 404', async () => {
    const list = ZStaticListResponse.parse((await staticList(alice, 'cc=DE&limit=50')).json());
    const lease = ZLease.parse((await leaseStatic(alice, list.list[0]!.id, 650)).json());
    assert.equal((await callRoute(t, ENDPOINTS.renewLease, byId(bob.headers, lease.id))).statusCode, 404);
    assert.equal((await callRoute(t, ENDPOINTS.refundLease, byId(bob.headers, lease.id))).statusCode, 404);
    assert.equal(
      (await callRoute(t, ENDPOINTS.getLeaseTraffic, byId(bob.headers, lease.id))).statusCode,
      404,
    );
    assert.equal(
      (await callRoute(t, ENDPOINTS.downloadLeaseTrafficCsv, byId(bob.headers, lease.id))).statusCode,
      404,
    );

    const early = await callRoute(t, ENDPOINTS.renewLease, byId(alice.headers, lease.id));
    assert.equal(early.statusCode, 409);
    assert.equal(early.json().status, 'RENEW_STATUS_NOT_RENEWABLE');
    clockMs += 20 * 3600_000;
    const renewed = await callRoute(t, ENDPOINTS.renewLease, byId(alice.headers, lease.id));
    assert.equal(renewed.statusCode, 200, renewed.body);
    const result = ZRenewResult.parse(renewed.json());
    assert.equal(result.status, 'RENEW_STATUS_RENEWED');
    assert.equal(result.priceC, 650);
    assert.equal(Date.parse(result.lease.until) - Date.parse(lease.until), 24 * 3600_000);

    await t.db.query(
      'INSERT INTO lease_traffic_hourly (lease_id, hour, reqs, fails, in_bytes, out_bytes) VALUES ($1, $2, 3, 1, 10, 20), ($1, $3, 1, 0, 5, 6)',
      [lease.id, new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T11:00:00Z')],
    );
    const csv = await callRoute(t, ENDPOINTS.downloadLeaseTrafficCsv, byId(alice.headers, lease.id));
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="lease-.*\.csv"/);
    assert.equal(
      csv.body,
      `${LEASE_TRAFFIC_CSV_HEADER}\r\n2030-01-01T10:00:00.000Z,3,1,10,20\r\n2030-01-01T11:00:00.000Z,1,0,5,6\r\n`,
    );
    assert.equal(
      (await callRoute(t, ENDPOINTS.getLeaseTraffic, byId(alice.headers, lease.id))).ok().hours.length,
      2,
    );

    const hist = await history(alice, `offset=0&limit=20&query=${encodeURIComponent(list.list[0]!.ip)}`);
    assert.equal(hist.statusCode, 200, hist.body);
    const items = ZLeaseHistoryResponse.parse(hist.json()).items;
    assert.ok(items.some((i) => i.leaseID === lease.id && i.lastPaymentC === 650 && i.static));
    assert.equal(ZLeaseHistoryResponse.parse((await history(bob)).json()).total, 0);
    assert.equal((await history(alice, 'limit=50')).statusCode, 400);
    assert.equal((await history(alice, 'start=2030-02-30')).statusCode, 400);
  });
});
