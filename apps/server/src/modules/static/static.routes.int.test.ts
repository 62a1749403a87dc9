/**
 * The static shop and the lease lifecycle routes through the app: list filters and paging, the
 * static purchase's states (rules §4), renew/refund answer shapes, history, hourly traffic as JSON
 * and CSV, the staff refund, and that no route lets one customer reach another's lease.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  LEASE_TRAFFIC_CSV_HEADER,
  ZLease,
  ZLeaseHistoryResponse,
  ZRefundResult,
  ZRenewResult,
  ZStaticListResponse,
} from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { booksOf, buildCustomer, setFlatPrices, type TestCustomer } from '../../test/market.ts';

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

const get = (who: TestCustomer, url: string) => t.app.inject({ method: 'GET', url, headers: who.headers });
const send = (who: TestCustomer, method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: payload === undefined ? who.headers : { ...who.headers, 'content-type': 'application/json' },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

describe('GET /static/list/', () => {
  test('lists the online static agents of the country with the private price, filtered and paged', async () => {
    const res = await get(alice, '/static/list/?cc=DE&limit=10');
    assert.equal(res.statusCode, 200, res.body);
    const page = ZStaticListResponse.parse(res.json());
    assert.equal(page.total, 12);
    assert.equal(page.list.length, 10);
    assert.ok(page.list.every((a) => a.priceC === 650));
    const next = ZStaticListResponse.parse(
      (await get(alice, '/static/list/?cc=DE&limit=10&cursor=10')).json(),
    );
    assert.equal(next.list.length, 2);
    const berlinHetzner = ZStaticListResponse.parse(
      (await get(alice, '/static/list/?cc=DE&city=berl&isp=hetz')).json(),
    );
    assert.equal(berlinHetzner.total, 2);
    assert.ok(berlinHetzner.list.every((a) => a.loc.city === 'Berlin' && a.loc.isp === 'Hetzner Online'));
    assert.equal(
      ZStaticListResponse.parse((await get(alice, '/static/list/?cc=DE&ip=198.51.101.')).json()).total,
      6,
    );
    assert.equal(
      ZStaticListResponse.parse((await get(alice, '/static/list/?cc=DE&conn=cell')).json()).total,
      3,
    );
    assert.equal(ZStaticListResponse.parse((await get(alice, '/static/list/?cc=FR')).json()).total, 0);
    assert.equal((await get(alice, '/static/list/?cc=DE&limit=7')).statusCode, 400);
  });
});

describe('POST /static/lease', () => {
  test('leases private for 24 hours; then the agent is taken; price change, funds and unknown agents refused', async () => {
    const list = ZStaticListResponse.parse((await get(alice, '/static/list/?cc=DE&limit=50')).json());
    const target = list.list[0]!;
    assert.equal(
      (await send(alice, 'POST', '/static/lease', { agentID: target.id, expPriceC: 600 })).json().errorCode,
      'priceChanged',
    );
    const poor = await send(bob, 'POST', '/static/lease', { agentID: target.id, expPriceC: 650 });
    assert.equal(poor.statusCode, 402);
    const res = await send(alice, 'POST', '/static/lease', { agentID: target.id, expPriceC: 650 });
    assert.equal(res.statusCode, 201, res.body);
    const lease = ZLease.parse(res.json());
    assert.equal(lease.static, true);
    assert.equal(lease.exc, true);
    assert.equal(Date.parse(lease.until) - Date.parse(lease.start), 24 * 3600_000);
    const again = await send(alice, 'POST', '/static/lease', { agentID: target.id, expPriceC: 650 });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().errorCode, 'agentAlreadyLeased');
    const gone = await send(alice, 'POST', '/static/lease', { agentID: 'no-such-agent', expPriceC: 650 });
    assert.equal(gone.json().errorCode, 'agentNotFound');
    const after = ZStaticListResponse.parse((await get(alice, '/static/list/?cc=DE&limit=50')).json());
    assert.equal(after.total, 11);
    assert.equal((await booksOf(t, bob.userId)).balanceC, 500);

    // The customer cannot refund a static lease; staff can, within the hour and unused.
    const own = await send(alice, 'DELETE', `/leases/${lease.id}`);
    assert.equal(own.statusCode, 400);
    assert.equal(own.json().errorCode, 'leaseNotEligible');
    assert.equal(own.json().status, 'REFUND_STATUS_INELIGIBLE');
    const forbidden = await send(alice, 'POST', `/admin/leases/${lease.id}/refund`);
    assert.equal(forbidden.statusCode, 403);
    const staff = await t.app.inject({
      method: 'POST',
      url: `/admin/leases/${lease.id}/refund`,
      headers: await t.staffAuth(newUserId('staff')),
    });
    assert.equal(staff.statusCode, 200, staff.body);
    assert.equal(ZRefundResult.parse(staff.json()).refundAmountC, 650);
    const books = await booksOf(t, alice.userId);
    assert.equal(books.balanceC, 100_000);
    assert.equal(books.balanceC, books.ledgerSumC);
  });
});

describe('lease lifecycle routes', () => {
  test('renew, refund, history and traffic answer their shapes; another customer gets 404', async () => {
    const list = ZStaticListResponse.parse((await get(alice, '/static/list/?cc=DE&limit=50')).json());
    const lease = ZLease.parse(
      (await send(alice, 'POST', '/static/lease', { agentID: list.list[0]!.id, expPriceC: 650 })).json(),
    );
    for (const [method, url] of [
      ['PATCH', `/leases/${lease.id}`],
      ['DELETE', `/leases/${lease.id}`],
    ] as const) {
      assert.equal((await send(bob, method, url)).statusCode, 404);
    }
    assert.equal((await get(bob, `/leases/${lease.id}/traffic`)).statusCode, 404);
    assert.equal((await get(bob, `/leases/${lease.id}/traffic.csv`)).statusCode, 404);

    const early = await send(alice, 'PATCH', `/leases/${lease.id}`);
    assert.equal(early.statusCode, 409);
    assert.equal(early.json().status, 'RENEW_STATUS_NOT_RENEWABLE');
    clockMs += 20 * 3600_000;
    const renewed = await send(alice, 'PATCH', `/leases/${lease.id}`);
    assert.equal(renewed.statusCode, 200, renewed.body);
    const result = ZRenewResult.parse(renewed.json());
    assert.equal(result.status, 'RENEW_STATUS_RENEWED');
    assert.equal(result.priceC, 650);
    assert.equal(Date.parse(result.lease.until) - Date.parse(lease.until), 24 * 3600_000);

    await t.db.query(
      'INSERT INTO lease_traffic_hourly (lease_id, hour, reqs, fails, in_bytes, out_bytes) VALUES ($1, $2, 3, 1, 10, 20), ($1, $3, 1, 0, 5, 6)',
      [lease.id, new Date('2030-01-01T10:00:00Z'), new Date('2030-01-01T11:00:00Z')],
    );
    const csv = await get(alice, `/leases/${lease.id}/traffic.csv`);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="lease-.*\.csv"/);
    assert.equal(
      csv.body,
      `${LEASE_TRAFFIC_CSV_HEADER}\r\n2030-01-01T10:00:00.000Z,3,1,10,20\r\n2030-01-01T11:00:00.000Z,1,0,5,6\r\n`,
    );
    assert.equal((await get(alice, `/leases/${lease.id}/traffic`)).json().hours.length, 2);

    const hist = await get(
      alice,
      `/leaseHistory?offset=0&limit=20&query=${encodeURIComponent(list.list[0]!.ip)}`,
    );
    assert.equal(hist.statusCode, 200, hist.body);
    const items = ZLeaseHistoryResponse.parse(hist.json()).items;
    assert.ok(items.some((i) => i.leaseID === lease.id && i.lastPaymentC === 650 && i.static));
    assert.equal(ZLeaseHistoryResponse.parse((await get(bob, '/leaseHistory')).json()).total, 0);
    assert.equal((await get(alice, '/leaseHistory?limit=50')).statusCode, 400);
    assert.equal((await get(alice, '/leaseHistory?start=2030-02-30')).statusCode, 400);
  });
});
