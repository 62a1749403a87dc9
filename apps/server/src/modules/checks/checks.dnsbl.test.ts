import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cleanScore, visibleBlacklists } from '@pm/contracts';
import { type DnsblServer, startDnsblServer } from '@pm/devnet/checks';
import { DEFAULT_DNSBL_ZONES } from './checks.config.ts';
import { classifyAnswer, createDnsblChecker, dnsblQueryName } from './checks.dnsbl.ts';

let dns: DnsblServer;
before(async () => {
  dns = await startDnsblServer({
    listings: {
      'zen.spamhaus.org': {
        '192.0.2.1': '127.0.0.4',
        '192.0.2.2': '127.255.255.254',
        '192.0.2.3': '127.0.0.10',
      },
      'bl.spamcop.net': { '192.0.2.1': '127.0.0.2', '192.0.2.4': '10.0.0.1' },
      'dnsbl-3.uceprotect.net': { '192.0.2.3': '127.0.0.2' },
    },
  });
});
after(() => dns.close());

const checker = () => createDnsblChecker({ server: dns.server, zones: DEFAULT_DNSBL_ZONES, timeoutMs: 1000 });

test('query names reverse the octets (IPv4) or the 32 nibbles (IPv6) before the zone', () => {
  assert.equal(dnsblQueryName('1.2.3.4', 'zen.spamhaus.org'), '4.3.2.1.zen.spamhaus.org');
  assert.equal(
    dnsblQueryName('2001:db8::1', 'z.example'),
    `1.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.z.example`,
  );
  assert.equal(dnsblQueryName('not-an-ip', 'z.example'), undefined);
});

test('127.0.0.x is a listing, 127.255.255.x and other answers are errors', () => {
  const zen = DEFAULT_DNSBL_ZONES[0]!;
  assert.deepEqual(classifyAnswer(zen, '127.0.0.2'), { listId: 'spamhaus-sbl' });
  assert.deepEqual(classifyAnswer(zen, '127.0.0.4'), { listId: 'spamhaus-xbl' });
  assert.ok('error' in classifyAnswer(zen, '127.255.255.254'));
  assert.ok('error' in classifyAnswer(zen, '10.0.0.1'));
});

test('a listed address is found on each list through a real DNS server on loopback', async () => {
  const r = await checker().check('192.0.2.1');
  assert.deepEqual(r, { listIds: ['spamcop', 'spamhaus-xbl'], errorZones: [] });
  assert.equal(cleanScore(visibleBlacklists(r.listIds).length), 8);
});

test('error answers are not listings: the address stays clean and the zone is reported', async () => {
  const r = await checker().check('192.0.2.2');
  assert.deepEqual(r.listIds, []);
  assert.deepEqual(r.errorZones, ['zen.spamhaus.org']);
  const odd = await checker().check('192.0.2.4');
  assert.deepEqual(odd.listIds, []);
  assert.deepEqual(odd.errorZones, ['bl.spamcop.net']);
});

test('the two ignored lists are dropped and do not lower the clean score', async () => {
  const r = await checker().check('192.0.2.3');
  assert.deepEqual(r.listIds, ['spamhaus-pbl', 'uceprotect-l3']);
  assert.deepEqual(visibleBlacklists(r.listIds), []);
  assert.equal(cleanScore(visibleBlacklists(r.listIds).length), 10);
});

test('an unlisted address is clean; a dead server is an error for every zone', async () => {
  assert.deepEqual(await checker().check('192.0.2.99'), { listIds: [], errorZones: [] });
  const dead = createDnsblChecker({
    server: '127.0.0.1:9',
    zones: DEFAULT_DNSBL_ZONES.slice(0, 2),
    timeoutMs: 200,
  });
  const r = await dead.check('192.0.2.1');
  assert.deepEqual(r.listIds, []);
  assert.equal(r.errorZones.length, 2);
});

test('clean score steps of rules §9 on the 1-10 scale', () => {
  assert.deepEqual([0, 1, 2, 3, 6, 7, 9, 10, 30].map(cleanScore), [10, 8, 8, 6, 6, 4, 4, 2, 2]);
  assert.deepEqual(visibleBlacklists(['', 'spamcop', 'spamcop', ' ', 'spamhaus-pbl']), ['spamcop']);
});
