import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ENDPOINTS,
  type TAgent,
  ZAgent,
  ZAgentListResponse,
  ZCountryTotals,
  ZErrorBody,
} from '@pm/contracts';
import type { agents } from '@pm/db';
import { buildAgent, buildLease, buildNode, newUserId } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let me: string;
let headers: Record<string, string>;
const DAY = 86_400_000;

type AgentInsert = Partial<typeof agents.$inferInsert>;

/**
 * The US shelf (listed: a-f, l-n; hidden: g full shared, h private, i offline, j static, k never
 * connected), a CA pair and a GB agent. `me` held a lease on l and holds one on m.
 */
const US: Record<string, AgentInsert> = {
  a: { reg: 'NY', city: 'New York', zip: '10001', isp: 'Hudson Fiber', ip: '198.51.100.10', stars: 8, actv: 0.95 },
  b: { reg: 'NY', city: 'Brooklyn', zip: '11201', isp: 'Hudson Fiber', ip: '198.51.100.11', conn: 'cell', stars: 4, actv: 0.9 },
  c: { reg: 'NJ', city: 'Jersey City', zip: '07302', isp: 'Garden State Net', ip: '203.0.113.5', stars: 2, actv: 0.85 },
  d: { reg: 'CA', city: 'Los Angeles', zip: '90012', isp: 'Sunset Cable', ip: '192.0.2.20', conn: 'cell', dev: 'android', stars: 9, actv: 0.8 },
  e: { reg: 'TX', city: 'Austin', zip: '78701', isp: 'Lonestar', ip: '198.51.7.1', stars: 6, actv: 0.75 },
  f: { reg: 'NY', city: 'New York', zip: '10001', isp: 'Empire Mobile', ip: '198.51.100.12', stars: 7, actv: 0.7 },
  g: { reg: 'NY', city: 'New York', zip: '10002', isp: 'Hidden Full', actv: 0.65 },
  h: { reg: 'NY', city: 'New York', zip: '10003', isp: 'Hidden Private', actv: 0.6 },
  i: { reg: 'NY', city: 'New York', zip: '10004', isp: 'Hidden Offline', online: false, actv: 0.55 },
  j: { reg: 'NY', city: 'New York', zip: '10005', isp: 'Hidden Static', isStatic: true, actv: 0.5 },
  k: { reg: 'NY', city: 'New York', zip: '10006', isp: 'Hidden Nodeless', actv: 0.45 },
  l: { reg: 'NY', city: 'Yonkers', zip: '10701', isp: 'Hudson Fiber', ip: '198.51.100.13', stars: 5, actv: 0.4 },
  m: { reg: 'CT', city: 'Stamford', zip: '06901', isp: 'Nutmeg Cable', ip: '198.51.100.14', host: 'dyn-198-51-100-14.nutmeg.example', stars: 5, actv: 0.4 },
  n: { reg: 'TX', city: 'Houston', zip: '77002', isp: 'Lonestar', ip: '203.0.113.6', stars: 3, actv: 0.1 },
}; // biome-ignore format: one agent a line
const LISTED = ['a', 'b', 'c', 'd', 'e', 'f', 'l', 'm', 'n'].map((k) => `us-${k}`);

before(async () => {
  t = await createTestApp('agents_routes');
  me = newUserId('me');
  headers = await t.auth(me);
  const node = await buildNode(t.db);
  for (const [k, o] of Object.entries(US)) {
    await buildAgent(t.db, { id: `us-${k}`, cc: 'US', nodeId: k === 'k' ? null : node.id, ...o });
  }
  await buildAgent(t.db, {
    id: 'ca-1',
    cc: 'CA',
    reg: 'Ontario',
    city: 'Toronto',
    zip: 'M5H',
    nodeId: node.id,
  });
  await buildAgent(t.db, {
    id: 'ca-2',
    cc: 'CA',
    reg: 'Quebec',
    city: 'Montreal',
    zip: 'H2Y',
    nodeId: node.id,
  });
  await buildAgent(t.db, {
    id: 'gb-1',
    cc: 'GB',
    reg: 'England',
    city: 'London',
    zip: 'EC1A',
    nodeId: node.id,
  });
  const now = Date.now();
  await t.db.query('UPDATE agents SET last_sold_at = $2 WHERE id = $1', ['us-e', new Date(now - 5 * DAY)]);
  await t.db.query('UPDATE agents SET last_sold_at = $2 WHERE id = $1', ['us-n', new Date(now - 40 * DAY)]);
  await t.db.query(
    `UPDATE agents SET speed_bps = 24000000, speed_checked_at = $1, first_seen = $2 WHERE id = 'us-a'`,
    [new Date(now - DAY), new Date('2024-03-01T00:00:00Z')],
  );
  await t.db.query(`INSERT INTO agent_presence (agent_id, node_id, started_at) VALUES ('us-a', $1, $2)`, [
    node.id,
    new Date(now - 3 * 3600_000),
  ]);
  for (let i = 0; i < 2; i++) await buildLease(t.db, 'us-f');
  for (let i = 0; i < 4; i++) await buildLease(t.db, 'us-g');
  await buildLease(t.db, 'us-h', { exc: true });
  await buildLease(t.db, 'us-l', { userId: me, endedAt: new Date(now - DAY), untilMs: now - DAY });
  await buildLease(t.db, 'us-m', { userId: me });
  // An ended private lease does not count.
  await buildLease(t.db, 'us-c', { exc: true, endedAt: new Date(now - DAY), untilMs: now - DAY });
});
after(async () => {
  await t?.close();
});

/** `GET /agents` with the query as the shop's address bar writes it (refused values too). */
const listAgents = (query: string, h: Record<string, string> = headers) =>
  callRouteUnchecked(t, ENDPOINTS.listAgents, {
    query: Object.fromEntries(new URLSearchParams(query)),
    headers: h,
  });
const getAgent = (id: string) => callRoute(t, ENDPOINTS.getAgent, { params: { id }, headers });
/** `GET /totals/agents`, `all` as written in the query (refused values too). */
const totals = (all?: string) =>
  callRouteUnchecked(t, ENDPOINTS.getCountryTotals, { query: all === undefined ? {} : { all }, headers });
async function list(query: string, h = headers) {
  const res = await listAgents(query, h);
  assert.equal(res.statusCode, 200, res.body);
  return ZAgentListResponse.parse(res.json());
}
const ids = (agents: TAgent[]) => agents.map((a) => a.id);
async function listIds(query: string): Promise<string[]> {
  const body = await list(`limit=100&${query}`);
  assert.equal(body.total, body.agents.length, query);
  return ids(body.agents).sort();
}
const us = (...keys: string[]) => keys.map((k) => `us-${k}`).sort();

describe('GET /agents', () => {
  test('lists the US agents on sale by default, most active first; full, private, offline, static and nodeless ones are hidden', async () => {
    const body = await list('limit=50');
    assert.equal(body.total, LISTED.length);
    assert.equal(body.cursor, 0);
    assert.deepEqual(ids(body.agents), LISTED);
    assert.equal(body.segments, undefined);
    const res = await listAgents('segments=true');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(Object.keys(res.json()), ['agents', 'cursor', 'total', 'segments']);
  });

  test('an agent as ZAgent: masked address and host, leases, prices from the rules, speed, age and uptime', async () => {
    const { agents } = await list('limit=50');
    const byId = new Map(agents.map((a) => [a.id, a]));
    const a = byId.get('us-a')!;
    assert.equal(a.ip, '198.51.100.___');
    assert.deepEqual(a.loc, {
      cc: 'US',
      reg: 'NY',
      city: 'New York',
      zip: '10001',
      isp: 'Hudson Fiber',
      mob: false,
    });
    assert.deepEqual(a.leases, { count: 0, worn: false });
    // Default rules: wifi, clean 8, New -> rule 5 "New" ($6.00 / $2.50).
    assert.deepEqual([a.priceExcC, a.priceShrC], [600, 250]);
    assert.deepEqual(a.speed?.bps, 24_000_000);
    assert.equal(a.age, '2024-03-01T00:00:00.000Z');
    assert.ok(a.firstSeen && Date.now() - Date.parse(a.firstSeen) > 2 * 3600_000);
    assert.deepEqual(a.blacklists, { listIDs: [] });
    assert.equal(a.scoreCheck, null);
    assert.equal(a.online, true);
    assert.equal(byId.get('us-b')!.firstSeen, null, 'no open presence interval');
    // cell, clean 4, New -> rule 2; wifi clean 2 -> rule 4; cell clean 9 android.
    assert.deepEqual([byId.get('us-b')!.priceExcC, byId.get('us-b')!.priceShrC], [900, 350]);
    assert.deepEqual([byId.get('us-c')!.priceExcC, byId.get('us-c')!.priceShrC], [300, 120]);
    assert.equal(byId.get('us-d')!.dev, 'android');
    // Sold 5 days ago: worn and priced by the catch-all; sold 40 days ago: New again (clean 3: rule 4).
    assert.deepEqual(byId.get('us-e')!.leases, { count: 0, worn: true });
    assert.deepEqual([byId.get('us-e')!.priceExcC, byId.get('us-e')!.priceShrC], [500, 200]);
    assert.equal(byId.get('us-n')!.leases.worn, false);
    assert.deepEqual(byId.get('us-f')!.leases, { count: 2, worn: false });
    for (const agent of agents) ZAgent.parse(agent);
  });

  test('the caller sees the address of what they hold; used marks what they hold or held', async () => {
    const mine = new Map((await list('limit=50')).agents.map((a) => [a.id, a]));
    assert.equal(mine.get('us-m')!.ip, '198.51.100.14');
    assert.equal(mine.get('us-m')!.host, 'dyn-198-51-100-14.nutmeg.example');
    assert.equal(mine.get('us-m')!.used, true);
    assert.equal(mine.get('us-l')!.ip, '198.51.100.___');
    assert.equal(mine.get('us-l')!.used, true);
    assert.equal(mine.get('us-a')!.used, false);
    const theirs = new Map((await list('limit=50', await t.auth(newUserId()))).agents.map((a) => [a.id, a]));
    assert.equal(theirs.get('us-m')!.ip, '198.51.100.___');
    assert.equal(theirs.get('us-m')!.host, '___.nutmeg.example');
    assert.equal(theirs.get('us-m')!.used, false);
    assert.equal(theirs.get('us-l')!.used, false);
  });

  test('each filter narrows the list', async () => {
    assert.deepEqual(await listIds('reg=NY'), us('a', 'b', 'f', 'l'));
    assert.deepEqual(await listIds('city=New%20York'), us('a', 'f'));
    assert.deepEqual(await listIds('zip=10001'), us('a', 'f'));
    assert.deepEqual(await listIds('isp=Lonestar'), us('e', 'n'));
    assert.deepEqual(await listIds('ip1=198'), us('a', 'b', 'e', 'f', 'l', 'm'));
    assert.deepEqual(await listIds('ip1=198&ip2=51'), us('a', 'b', 'e', 'f', 'l', 'm'));
    assert.deepEqual(await listIds('ip1=203&ip2=0'), us('c', 'n'));
    assert.deepEqual(await listIds('ip1=19'), [], 'the prefix ends at the dot: 19 is not 198 or 192');
    assert.deepEqual(await listIds('conn=cell'), us('b', 'd'));
    assert.deepEqual(await listIds('conn=wifi'), us('a', 'c', 'e', 'f', 'l', 'm', 'n'));
    assert.deepEqual(await listIds('leases=some'), us('f', 'm'));
    assert.deepEqual(await listIds('leases=none'), us('a', 'b', 'c', 'd', 'e', 'l', 'n'));
    assert.deepEqual(await listIds('leases=any'), [...LISTED].sort());
    assert.deepEqual(await listIds('fresh=false'), us('e'));
    assert.deepEqual(await listIds('fresh=true'), us('a', 'b', 'c', 'd', 'f', 'l', 'm', 'n'));
    assert.deepEqual(await listIds('exstars=7'), us('a', 'd', 'f'));
    assert.deepEqual(await listIds('exstars=10'), []);
    assert.deepEqual(await listIds('cc=CA'), ['ca-1', 'ca-2']);
    assert.deepEqual(await listIds('cc=DE'), []);
  });

  test('filters combine', async () => {
    assert.deepEqual(await listIds('reg=NY&conn=wifi'), us('a', 'f', 'l'));
    assert.deepEqual(await listIds('reg=NY&conn=cell&exstars=4'), us('b'));
    assert.deepEqual(await listIds('reg=NY&city=New%20York&leases=none'), us('a'));
    assert.deepEqual(await listIds('isp=Hudson%20Fiber&ip1=198&ip2=51&exstars=5'), us('a', 'l'));
    assert.deepEqual(await listIds('reg=TX&fresh=true'), us('n'));
    assert.deepEqual(await listIds('leases=some&conn=wifi&reg=CT'), us('m'));
    assert.deepEqual(await listIds('reg=NY&cc=CA'), [], 'a region of another country');
  });

  test('segments: the distinct values of the country under the other filters, each list ignoring its own, sorted', async () => {
    const all = (await list('segments=true')).segments!;
    assert.deepEqual(all.regions, ['CA', 'CT', 'NJ', 'NY', 'TX']);
    assert.deepEqual(all.cities, [
      'Austin',
      'Brooklyn',
      'Houston',
      'Jersey City',
      'Los Angeles',
      'New York',
      'Stamford',
      'Yonkers',
    ]);
    assert.deepEqual(all.zips, ['06901', '07302', '10001', '10701', '11201', '77002', '78701', '90012']);
    assert.deepEqual(all.isps, [
      'Empire Mobile',
      'Garden State Net',
      'Hudson Fiber',
      'Lonestar',
      'Nutmeg Cable',
      'Sunset Cable',
    ]);

    const ny = (await list('segments=true&reg=NY')).segments!;
    assert.deepEqual(ny.regions, all.regions, 'regions ignore the region filter, so the picker can switch');
    assert.deepEqual(ny.cities, ['Brooklyn', 'New York', 'Yonkers']);
    assert.deepEqual(ny.zips, ['10001', '10701', '11201']);
    assert.deepEqual(ny.isps, ['Empire Mobile', 'Hudson Fiber']);

    const nyCity = (await list('segments=true&reg=NY&city=New%20York&conn=wifi')).segments!;
    assert.deepEqual(nyCity.cities, ['New York', 'Yonkers'], 'cities keep the region and connection filters');
    assert.deepEqual(nyCity.regions, ['NY'], 'regions keep the city filter');
    assert.deepEqual(nyCity.isps, ['Empire Mobile', 'Hudson Fiber']);

    const none = (await list('segments=true&cc=DE')).segments!;
    assert.deepEqual(none, { isps: [], zips: [], cities: [], regions: [] });
    const gb = (await list('segments=true&cc=GB')).segments!;
    assert.deepEqual(gb, { isps: ['Example ISP'], zips: ['EC1A'], cities: ['London'], regions: ['England'] });
  });

  test('cursor pages through to the end, then answers 0', async () => {
    const seen: string[] = [];
    let cursor = 0;
    for (let i = 0; i < 10; i++) {
      const body = await list(`limit=2&cursor=${cursor}`);
      assert.equal(body.total, LISTED.length);
      seen.push(...ids(body.agents));
      cursor = body.cursor;
      if (cursor === 0) break;
      assert.equal(cursor, seen.length);
    }
    assert.deepEqual(seen, LISTED);
    const past = await list('limit=10&cursor=100');
    assert.deepEqual([past.agents.length, past.cursor, past.total], [0, 0, LISTED.length]);
    const exact = await list(`limit=${LISTED.length}`);
    assert.equal(exact.cursor, 0, 'a page ending at the total has no next page');
  });

  test('bad input is a 400 naming the field', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=-1', 'cursor'],
      ['cc=usa', 'cc'],
      ['conn=dsl', 'conn'],
      ['leases=all', 'leases'],
      ['fresh=yes', 'fresh'],
      ['exstars=11', 'exstars'],
      ['ip1=0', 'ip1'],
      ['ip1=256', 'ip1'],
      ['ip1=10&ip2=256', 'ip2'],
      ['ip2=5', 'ip2'],
      ['georad=101&geozip=10001', 'georad'],
      ['colour=red', 'colour'],
    ] as const) {
      const res = await listAgents(query);
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.equal(ZErrorBody.parse(res.json()).field, field, query);
    }
  });

  test('a page is shared between callers for a moment; Cache-Control: no-cache reads it anew', async () => {
    const startedMs = performance.now();
    const before = await list('isp=Garden%20State%20Net');
    assert.deepEqual(before.agents[0]!.leases.count, 0);
    const lease = await buildLease(t.db, 'us-c', { userId: me });
    const cached = await list('isp=Garden%20State%20Net');
    // Within the second a page is shared, the lease written behind the service's back is not seen yet.
    if (performance.now() - startedMs < 900) {
      assert.deepEqual([cached.agents[0]!.leases.count, cached.agents[0]!.ip], [0, '203.0.113.___']);
    }
    const fresh = await list('isp=Garden%20State%20Net', { ...headers, 'cache-control': 'no-cache' });
    assert.deepEqual(
      [fresh.agents[0]!.leases.count, fresh.agents[0]!.ip, fresh.agents[0]!.used],
      [1, '203.0.113.5', true],
    );
    const after = await list('isp=Garden%20State%20Net');
    assert.equal(after.agents[0]!.leases.count, 1, 'the fresh read replaced the shared page');
    await t.db.query('DELETE FROM leases WHERE id = $1', [lease.id]);
  });
});

describe('GET /agents/{id}', () => {
  test('one agent, listed or not; 404 when unknown, static or never connected', async () => {
    const a = await getAgent('us-a');
    assert.equal(a.statusCode, 200);
    assert.equal(ZAgent.parse(a.json()).ip, '198.51.100.___');
    const full = ZAgent.parse((await getAgent('us-g')).json());
    assert.equal(full.leases.count, 4);
    const offline = ZAgent.parse((await getAgent('us-i')).json());
    assert.equal(offline.online, false);
    const mine = ZAgent.parse((await getAgent('us-m')).json());
    assert.deepEqual([mine.ip, mine.used], ['198.51.100.14', true]);
    for (const id of ['us-j', 'us-k', 'nope']) {
      const res = await getAgent(id);
      assert.equal(res.statusCode, 404, id);
      assert.equal(ZErrorBody.parse(res.json()).error, 'NOT_FOUND');
    }
  });
});

describe('GET /totals/agents', () => {
  test('all=true: agents on sale per country; otherwise the shop chips, 0 when empty', async () => {
    const all = await totals('true');
    assert.equal(all.statusCode, 200);
    assert.deepEqual(ZCountryTotals.parse(all.json()).countries, { US: LISTED.length, CA: 2, GB: 1 });
    const chips = ZCountryTotals.parse((await totals()).json()).countries;
    assert.deepEqual(chips, { US: LISTED.length, GB: 1, AE: 0, CA: 2, IT: 0, CN: 0 });
    assert.equal((await totals('maybe')).statusCode, 400);
  });
});

describe('authentication', () => {
  test('every shop route needs a signed-in caller', async () => {
    for (const res of [
      await callRoute(t, ENDPOINTS.listAgents),
      await callRoute(t, ENDPOINTS.getAgent, { params: { id: 'us-a' } }),
      await callRouteUnchecked(t, ENDPOINTS.getCountryTotals, { query: { all: 'true' } }),
    ]) {
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.headers['www-authenticate']?.toString().startsWith('Bearer'), true);
    }
  });
});
