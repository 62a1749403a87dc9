import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOverrideGeo, isMobileIsp } from './geo.ts';
import { type CityRecord, createMmdbGeo, parseAsnCsv, toLoc } from './mmdb.ts';

// A few lines in the format of @ip-location-db/asn's asn-ipv4-num.csv (quoted names with "" escapes).
const ASN_FIXTURE = [
  '16777216,16777471,13335,"Cloudflare, Inc."',
  '134744064,134744319,15169,Google LLC',
  '1235222528,1235353599,21928,"T-Mobile USA, Inc."',
  '3221225984,3221226239,64500,"Quote ""Test"" Net"',
  '',
].join('\n');

test('ASN table: binary search over ranges, quoted names, misses', () => {
  const asn = parseAsnCsv(ASN_FIXTURE);
  assert.equal(asn.size, 4);
  assert.equal(asn.lookup('1.0.0.0'), 'Cloudflare, Inc.');
  assert.equal(asn.lookup('1.0.0.255'), 'Cloudflare, Inc.');
  assert.equal(asn.lookup('1.0.1.0'), undefined);
  assert.equal(asn.lookup('8.8.8.8'), 'Google LLC');
  assert.equal(asn.lookup('73.162.1.1'), undefined);
  assert.equal(asn.lookup('73.161.0.1'), 'T-Mobile USA, Inc.');
  assert.equal(asn.lookup('192.0.2.7'), 'Quote "Test" Net');
  assert.equal(asn.lookup('255.255.255.255'), undefined);
  assert.equal(asn.lookup('::1'), undefined);
});

test('city record to loc: US states abbreviated, mobile carriers flagged', () => {
  assert.deepEqual(
    toLoc(
      { country_code: 'us', state1: 'California', city: 'Mountain View', latitude: 1, longitude: 2 },
      'Google LLC',
    ),
    {
      cc: 'US',
      reg: 'CA',
      city: 'Mountain View',
      zip: '',
      isp: 'Google LLC',
      mob: false,
      lat: 1,
      lon: 2,
    },
  );
  const au = toLoc({ country_code: 'AU', state1: 'New South Wales', city: 'Sydney' }, undefined);
  assert.equal(au.reg, 'New South Wales');
  assert.equal(au.lat, undefined);
  assert.equal(toLoc({ country_code: 'US' }, 'T-Mobile USA, Inc.').mob, true);
  assert.equal(isMobileIsp('Verizon Wireless'), true);
  assert.equal(isMobileIsp('Comcast Cable Communications, LLC'), false);
});

test('lookup picks the reader by address family and adds the ISP for IPv4', () => {
  const v4: Record<string, CityRecord> = {
    '8.8.8.8': { country_code: 'US', state1: 'Texas', city: 'Austin' },
  };
  const v6: Record<string, CityRecord> = {
    '2001:db8::1': { country_code: 'DE', state1: 'Berlin', city: 'Berlin' },
  };
  const geo = createMmdbGeo({
    v4: { get: (ip) => v4[ip] ?? null },
    v6: { get: (ip) => v6[ip] ?? null },
    asn: parseAsnCsv(ASN_FIXTURE),
  });
  assert.deepEqual(geo.lookup('8.8.8.8'), {
    cc: 'US',
    reg: 'TX',
    city: 'Austin',
    zip: '',
    isp: 'Google LLC',
    mob: false,
  });
  assert.equal(geo.lookup('::ffff:8.8.8.8')?.city, 'Austin');
  assert.equal(geo.lookup('2001:db8::1')?.cc, 'DE');
  assert.equal(geo.lookup('9.9.9.9'), undefined);
  const throwing = createMmdbGeo({
    v4: {
      get: () => {
        throw new Error('bad ip');
      },
    },
  });
  assert.equal(throwing.lookup('x'), undefined);
});

test('overrides win over the database and also match IPv4-mapped addresses', () => {
  const fallback = {
    lookup: (ip: string) => (ip === '8.8.8.8' ? toLoc({ country_code: 'US' }, 'Google LLC') : undefined),
  };
  const geo = createOverrideGeo(
    { '192.0.2.10': { cc: 'FR', reg: 'IDF', city: 'Paris', zip: '75001', isp: 'Seine Fibre', mob: false } },
    fallback,
  );
  assert.equal(geo.lookup('192.0.2.10')?.city, 'Paris');
  assert.equal(geo.lookup('::ffff:192.0.2.10')?.city, 'Paris');
  assert.equal(geo.lookup('8.8.8.8')?.isp, 'Google LLC');
  assert.equal(geo.lookup('192.0.2.11'), undefined);
});
