import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBlockList, isAddressAllowed, isPortAllowed } from './policy.ts';

test('default policy refuses loopback, private, link-local, CGNAT, ULA, unspecified, multicast', () => {
  const list = createBlockList({});
  for (const ip of [
    '127.0.0.1',
    '127.9.9.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    'not-an-ip',
  ]) {
    assert.equal(isAddressAllowed(list, ip), false, ip);
  }
  for (const ip of [
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '192.0.2.1',
    '2001:db8::1',
    '::ffff:8.8.8.8',
  ]) {
    assert.equal(isAddressAllowed(list, ip), true, ip);
  }
});

test('allowLoopback opens loopback only; allowPrivate opens the private ranges', () => {
  const loop = createBlockList({ allowLoopback: true });
  assert.equal(isAddressAllowed(loop, '127.0.0.1'), true);
  assert.equal(isAddressAllowed(loop, '::1'), true);
  assert.equal(isAddressAllowed(loop, '10.0.0.1'), false);
  const priv = createBlockList({ allowPrivate: true });
  assert.equal(isAddressAllowed(priv, '10.0.0.1'), true);
  assert.equal(isAddressAllowed(priv, '127.0.0.1'), true);
  assert.equal(isAddressAllowed(priv, '0.0.0.0'), false);
  assert.equal(isAddressAllowed(priv, '224.0.0.1'), false);
});

test('restrictTo limits destinations to the listed ranges', () => {
  const list = createBlockList({ allowLoopback: true, restrictTo: ['127.0.0.0/8', '::1'] });
  assert.equal(isAddressAllowed(list, '127.0.0.1'), true);
  assert.equal(isAddressAllowed(list, '::1'), true);
  assert.equal(isAddressAllowed(list, '93.184.216.34'), false);
});

test('restrictPorts limits destinations to the listed ports; without it every port is allowed', () => {
  assert.equal(isPortAllowed({ restrictPorts: [8080] }, 8080), true);
  assert.equal(isPortAllowed({ restrictPorts: [8080] }, 4369), false);
  assert.equal(isPortAllowed({}, 4369), true);
});
