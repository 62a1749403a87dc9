import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TLease } from '@pm/contracts';
import {
  canSaveWhitelist,
  checkWhitelist,
  connectionString,
  httpConnectionString,
  leaseSharedLabel,
  matchesLeaseFilter,
} from './rules.ts';

const socks = {
  host: 'gw.example.net',
  ip: '203.0.113.10',
  port: 10000,
  ports: [12080, 13080, 14080, 15080],
  httpPort: 16080,
  user: 'u_abc',
  pwd: 'p@ss:w/rd',
};

it('dials the ports the lease answer names, never the base port plus an offset of its own', () => {
  // Ports no offset arithmetic on `port` gives: the strings can only have read them from the answer.
  const odd = { ...socks, port: 1, ports: [40001, 40002, 40003, 40004], httpPort: 40005 };
  assert.equal(new URL(connectionString(odd)).port, '40001');
  assert.equal(new URL(httpConnectionString(odd)).port, '40005');
  assert.equal(httpConnectionString(socks), 'http://u_abc:p%40ss%3Aw%2Frd@203.0.113.10:16080');
});

it('builds a connection string curl takes as pasted', () => {
  assert.equal(connectionString(socks), 'socks5h://u_abc:p%40ss%3Aw%2Frd@203.0.113.10:12080');
  assert.equal(connectionString({ ...socks, ip: '', pwd: 'x' }), 'socks5h://u_abc:x@gw.example.net:12080');
  const url = new URL(connectionString(socks));
  assert.equal(decodeURIComponent(url.password), 'p@ss:w/rd');
});

it('whitelist: comma-separated IPv4 addresses with octets 0-255; empty allowed', () => {
  assert.deepEqual(checkWhitelist(''), { ok: true, entries: [] });
  assert.deepEqual(checkWhitelist(' 1.2.3.4, 10.0.0.0/24 ,'), {
    ok: true,
    entries: ['1.2.3.4', '10.0.0.0/24'],
  });
  assert.deepEqual(checkWhitelist('0.0.0.0/0'), { ok: false, error: 'Range wider than /24: 0.0.0.0/0' });
  assert.equal(checkWhitelist('10.0.0.0/8').ok, false);
  assert.deepEqual(checkWhitelist('1.2.3.256'), { ok: false, error: 'Not an IPv4 address: 1.2.3.256' });
  assert.equal(checkWhitelist('1.2.3').ok, false);
  assert.equal(checkWhitelist('1.2.3.4,example.com').ok, false);
  const many = Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`).join(',');
  assert.deepEqual(checkWhitelist(many), { ok: false, error: 'At most 20 addresses' });
});

it('Save needs a change and a valid list', () => {
  assert.equal(canSaveWhitelist('1.2.3.4', '1.2.3.4'), false);
  assert.equal(canSaveWhitelist('1.2.3.4,5.6.7.8', '1.2.3.4'), true);
  assert.equal(canSaveWhitelist('', '1.2.3.4'), true);
  assert.equal(canSaveWhitelist('1.2.3.999', ''), false);
});

it('filters leases by IP, id, note, place and ISP', () => {
  const lease = {
    id: 'ab12-3456',
    note: 'Scraper A',
    currentInfo: {
      ip: '198.51.100.7',
      host: 'host7.example.net',
      loc: { cc: 'US', reg: 'Texas', city: 'Austin', zip: '78701', isp: 'Example Fiber', mob: false },
    },
  } as unknown as TLease;
  for (const text of ['', '198.51', 'AB12', 'scraper', 'austin', 'fiber', 'united states', '78701']) {
    assert.equal(matchesLeaseFilter(lease, text), true, text);
  }
  assert.equal(matchesLeaseFilter(lease, 'london'), false);
});

it('names the lease type on the Shared line', () => {
  const info = { leases: 2 } as TLease['currentInfo'];
  assert.equal(leaseSharedLabel({ exc: true, currentInfo: info }), 'Private');
  assert.equal(leaseSharedLabel({ exc: false, currentInfo: info }), '2 of 4');
  assert.equal(leaseSharedLabel({ exc: false, currentInfo: { ...info, leases: 0 } }), '1 of 4');
});
