import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { buildAccount, buildAgent, buildLease, buildNode, newUserId } from '@pm/db/testing';
import { type DnsblServer, startDnsblServer } from '@pm/devnet/checks';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';
import { type ChecksSettings, DEFAULT_CHECKS_SETTINGS } from './checks.config.ts';
import { createDnsblChecker } from './checks.dnsbl.ts';
import { createChecksService } from './checks.service.ts';

let t: TestApp;
let dns: DnsblServer;
let settings: ChecksSettings;
let headers: Record<string, string>;

// Eight lists for .13 (score 4), two for .10 (score 8), only the ignored ones for .12, an error code for .14.
const LISTINGS = {
  'zen.spamhaus.org': {
    '198.51.100.13': '127.0.0.2',
    '192.0.2.12': '127.0.0.10',
    '192.0.2.14': '127.255.255.254',
  },
  'bl.spamcop.net': { '203.0.113.10': '127.0.0.2', '198.51.100.13': '127.0.0.2' },
  'b.barracudacentral.org': { '203.0.113.10': '127.0.0.2', '198.51.100.13': '127.0.0.2' },
  'dnsbl.dronebl.org': { '198.51.100.13': '127.0.0.3' },
  'psbl.surriel.com': { '198.51.100.13': '127.0.0.2' },
  'dnsbl-1.uceprotect.net': { '198.51.100.13': '127.0.0.2' },
  'bl.mailspike.net': { '198.51.100.13': '127.0.0.2' },
  'bl.blocklist.de': { '198.51.100.13': '127.0.0.2' },
  'dnsbl-3.uceprotect.net': { '192.0.2.12': '127.0.0.2' },
};

before(async () => {
  dns = await startDnsblServer({ listings: LISTINGS });
  settings = {
    ...DEFAULT_CHECKS_SETTINGS,
    dnsbl: { ...DEFAULT_CHECKS_SETTINGS.dnsbl, server: dns.server, timeoutMs: 500 },
  };
  // The shop's answers are shared for shopCacheMs; off, so each request reads the tables.
  t = await createTestApp('checks_blacklists', {
    payments: false,
    settings: { checks: settings, shopCacheMs: 0 },
  });
  headers = await t.auth(newUserId());
});
after(async () => {
  await t.close();
  await dns.close();
});

const service = () =>
  createChecksService({ db: t.db.db, settings, dnsbl: createDnsblChecker(settings.dnsbl), now: Date.now });

test('the sweep looks every address up; the shop shows the lists, the clean score and filters on it', async () => {
  const node = await buildNode(t.db);
  const cc = 'GB';
  const mk = (ip: string) => buildAgent(t.db, { ip, cc, nodeId: node.id, online: true, stars: 9 });
  const [dirty, some, ignored, error, clean] = await Promise.all(
    ['198.51.100.13', '203.0.113.10', '192.0.2.12', '192.0.2.14', '192.0.2.99'].map(mk),
  );
  // Before any lookup the seeded score stands.
  const before = await callRoute(t, ENDPOINTS.listAgents, { query: { cc, limit: 50 }, headers });
  assert.ok(before.json().agents.every((a: { stars: number }) => a.stars === 9));

  assert.equal(await service().sweepBlacklists(), 5);
  assert.equal(await service().sweepBlacklists(), 0, 'nothing is due right after a sweep');

  const res = await callRoute(t, ENDPOINTS.listAgents, { query: { cc, limit: 50 }, headers });
  const byId = new Map(res.json().agents.map((a: { id: string }) => [a.id, a]));
  const seen = (id: string) => byId.get(id) as { stars: number; blacklists: { listIDs: string[] } };
  assert.equal(seen(dirty!.id).stars, 4);
  assert.equal(seen(dirty!.id).blacklists.listIDs.length, 8);
  assert.equal(seen(some!.id).stars, 8);
  assert.deepEqual(seen(some!.id).blacklists.listIDs, ['barracuda', 'spamcop']);
  assert.equal(seen(ignored!.id).stars, 10, 'PBL and UCEPROTECT L3 are ignored');
  assert.deepEqual(seen(ignored!.id).blacklists.listIDs, []);
  assert.equal(seen(error!.id).stars, 10, '127.255.255.x is an error, not a listing');
  assert.equal(seen(clean!.id).stars, 10);

  const filtered = await callRoute(t, ENDPOINTS.listAgents, {
    query: { cc, limit: 50, exstars: 7 },
    headers,
  });
  assert.deepEqual(
    filtered
      .json()
      .agents.map((a: { id: string }) => a.id)
      .sort(),
    [some!.id, ignored!.id, error!.id, clean!.id].sort(),
  );
  assert.equal(filtered.json().total, 4);
});

test("an agent's new address is looked up at the next sweep; the old result no longer counts", async () => {
  const node = await buildNode(t.db);
  const agent = await buildAgent(t.db, {
    ip: '203.0.113.10',
    cc: 'IT',
    nodeId: node.id,
    online: true,
    stars: 5,
  });
  await service().checkAgentBlacklists(agent.id);
  const get = async () =>
    (await callRoute(t, ENDPOINTS.getAgent, { params: { id: agent.id }, headers })).json();
  assert.equal((await get()).stars, 8);
  await t.db.query(`UPDATE agents SET ip = '198.51.100.13' WHERE id = $1`, [agent.id]);
  assert.equal((await get()).stars, 5, 'the row value until the new address is looked up');
  assert.deepEqual((await get()).blacklists.listIDs, []);
  await service().sweepBlacklists();
  assert.equal((await get()).stars, 4);
});

test("a lease shows its agent's current lists and clean score", async () => {
  const node = await buildNode(t.db);
  const agent = await buildAgent(t.db, {
    ip: '198.51.100.13',
    cc: 'DE',
    nodeId: node.id,
    online: true,
    stars: 9,
  });
  await service().checkAgentBlacklists(agent.id);
  const userId = newUserId();
  await buildAccount(t.db, { userId });
  await buildLease(t.db, agent.id, { userId });
  const res = await callRoute(t, ENDPOINTS.listLeases, { headers: await t.auth(userId) });
  assert.equal(res.statusCode, 200, res.body);
  const lease = res.json().leases[0];
  assert.equal(lease.currentInfo.score, 4);
  assert.equal(lease.currentInfo.blacklists.length, 8);
});
