import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findExitChanges, type ShownExit } from './leases.changes.ts';

const shown: ShownExit = {
  ip: '192.0.2.41',
  host: 'a41.cable.example',
  cc: 'US',
  reg: 'TX',
  city: 'Austin',
  zip: '73301',
  isp: 'Example Cable',
};
const loc = { cc: 'US', reg: 'TX', city: 'Austin', zip: '73301', isp: 'Example Cable', mob: false };

test('the same exit is no change; mob is not a shop property', () => {
  assert.deepEqual(
    findExitChanges(shown, { ip: shown.ip, host: shown.host, loc: { ...loc, mob: true } }),
    [],
  );
});

test('a new address in another city with another host name changes ip, geo and host', () => {
  const seen = { ip: '198.51.100.7', host: 'lyon7.mobile.example', loc: { ...loc, cc: 'FR', city: 'Lyon' } };
  assert.deepEqual(findExitChanges(shown, seen), ['ip', 'geo', 'host']);
});

test('each location field alone is a geo change', () => {
  for (const key of ['cc', 'reg', 'city', 'zip', 'isp'] as const) {
    assert.deepEqual(
      findExitChanges(shown, { ip: shown.ip, host: shown.host, loc: { ...loc, [key]: 'X' } }),
      ['geo'],
    );
  }
});

test('what the probe could not tell is not a change', () => {
  assert.deepEqual(findExitChanges(shown, { ip: shown.ip, host: null, loc: null }), []);
  assert.deepEqual(findExitChanges(shown, { ip: '203.0.113.9', host: null, loc: null }), ['ip']);
});
