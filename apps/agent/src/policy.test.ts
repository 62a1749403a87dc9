import assert from 'node:assert/strict';
import type os from 'node:os';
import { describe, test } from 'node:test';
import { createEgressGuard, type DestinationPolicy } from './policy.ts';
import { embeddedIpv4, IPV4_SPECIAL, IPV6_SPECIAL, ipv6Bytes } from './ranges.ts';

/** A device with no interfaces, so only the ranges decide. */
const noInterfaces = () => ({});
const guardOf = (policy: DestinationPolicy = {}) =>
  createEgressGuard({ networkInterfaces: noInterfaces, ...policy });

describe('special-purpose ranges: one test per table row', () => {
  for (const row of [...IPV4_SPECIAL, ...IPV6_SPECIAL]) {
    test(`${row.cidr} (${row.name}) refused by default: ${row.sample}`, () => {
      const guard = guardOf();
      assert.equal(guard.refusal(row.sample), row.cls);
      const allowPrivate = guardOf({ allowPrivate: true });
      assert.equal(
        allowPrivate.isAllowed(row.sample),
        row.cls !== 'reserved',
        'allowPrivate opens all but reserved',
      );
      const allowLoopback = guardOf({ allowLoopback: true });
      assert.equal(
        allowLoopback.isAllowed(row.sample),
        row.cls === 'loopback',
        'allowLoopback opens loopback only',
      );
    });
  }
});

test('public addresses and global unicast IPv6 are allowed; the rest of IPv6 is not', () => {
  const guard = guardOf();
  for (const ip of [
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.31.196.1',
    '2606:4700::1111',
    '2a00:1450::1',
  ])
    assert.equal(guard.refusal(ip), null, ip);
  for (const ip of ['4000::1', 'e000::1', '::2:1:0:0:1', '1::1'])
    assert.equal(guard.refusal(ip), 'not-global-unicast', ip);
  for (const ip of ['not-an-ip', 'fe80::1%eth0', '']) assert.equal(guard.refusal(ip), 'invalid', ip);
});

describe('IPv6 addresses that embed IPv4 are judged by the IPv4 rules', () => {
  const cases: [form: string, refused: string, allowed: string][] = [
    ['IPv4-mapped dotted', '::ffff:127.0.0.1', '::ffff:8.8.8.8'],
    ['IPv4-mapped hex', '::ffff:a00:1', '::ffff:808:808'],
    ['IPv4-compatible dotted', '::127.0.0.1', '::8.8.8.8'],
    ['IPv4-compatible metadata', '::169.254.169.254', '::93.184.216.34'],
    ['NAT64 well-known', '64:ff9b::7f00:1', '64:ff9b::808:808'],
    ['NAT64 well-known dotted', '64:ff9b::169.254.169.254', '64:ff9b::8.8.8.8'],
    ['NAT64 local-use /96 layout', '64:ff9b:1::a00:1', '64:ff9b:1::808:808'],
    ['NAT64 local-use /64 layout', '64:ff9b:1:0:7f:0:800:0', '64:ff9b:1::5db8:d822'],
    ['6to4', '2002:7f00:1::1', '2002:808:808::1'],
    ['6to4 private', '2002:c0a8:101::1', '2002:5db8:d822::1'],
  ];
  for (const [form, refused, allowed] of cases) {
    test(`${form}: ${refused} refused, ${allowed} allowed`, () => {
      const guard = guardOf();
      assert.notEqual(guard.refusal(refused), null);
      assert.equal(guard.refusal(allowed), null);
    });
  }
  test('NAT64 local-use /48 layout: refused whatever it carries (its /96 reading is 0.0.0.0: fail closed)', () => {
    assert.notEqual(guardOf().refusal('64:ff9b:1:c0a8:1:100::'), null, '192.168.1.1');
    assert.notEqual(guardOf().refusal('64:ff9b:1:808:8:800::'), null, '8.8.8.8');
  });
  test('decoding', () => {
    assert.deepEqual(embeddedIpv4(ipv6Bytes('64:ff9b::c000:221')!), ['192.0.2.33']);
    assert.deepEqual(embeddedIpv4(ipv6Bytes('2002:c000:221::')!), ['192.0.2.33']);
    assert.deepEqual(embeddedIpv4(ipv6Bytes('::1')!), []);
    assert.deepEqual(embeddedIpv4(ipv6Bytes('2606:4700::1')!), []);
    assert.equal(ipv6Bytes('1.2.3.4'), null);
  });
});

function interfaces(list: Record<string, { address: string; cidr: string }[]>) {
  return () =>
    Object.fromEntries(
      Object.entries(list).map(([name, infos]) => [
        name,
        infos.map(
          (i) =>
            ({
              address: i.address,
              cidr: i.cidr,
              family: i.address.includes(':') ? 'IPv6' : 'IPv4',
              netmask: '',
              mac: '00:00:00:00:00:00',
              internal: false,
              scopeid: 0,
            }) as os.NetworkInterfaceInfo,
        ),
      ]),
    );
}

test("the device's interface addresses and on-link prefixes are refused, IPv4 and IPv6", () => {
  const guard = createEgressGuard({
    networkInterfaces: interfaces({
      wlan0: [
        { address: '2a02:810d:4ac0:1e00::17', cidr: '2a02:810d:4ac0:1e00::17/64' },
        { address: '81.2.69.160', cidr: '81.2.69.160/28' },
      ],
      tun0: [{ address: '81.9.9.9', cidr: '81.9.9.9/1' }],
    }),
  });
  assert.equal(guard.refusal('2a02:810d:4ac0:1e00::17'), 'device', "the device's own global address");
  assert.equal(guard.refusal('2a02:810d:4ac0:1e00::1'), 'device', 'the router on the same /64');
  assert.equal(guard.refusal('2a02:810d:4ac0:1e00:aaaa::5'), 'device', 'the NAS on the same /64');
  assert.equal(guard.refusal('81.2.69.161'), 'device', 'a neighbour in the on-link IPv4 prefix');
  assert.equal(guard.refusal('::ffff:81.2.69.160'), 'device', 'mapped form');
  assert.equal(guard.refusal('64:ff9b::5102:45a0'), 'device', 'NAT64 form');
  assert.equal(guard.refusal('81.9.9.9'), 'device', 'a catch-all prefix refuses its own address');
  assert.equal(guard.refusal('81.9.9.10'), null, '... but not the half of the internet it claims');
  assert.equal(guard.refusal('2a02:810d:4ac0:1e01::1'), null, 'the next /64 is someone else');
});

test('interfaces are read again when they change (after the refresh period or on demand)', () => {
  let t = 0;
  let current: Record<string, { address: string; cidr: string }[]> = {};
  const guard = createEgressGuard({ networkInterfaces: () => interfaces(current)() }, () => t);
  assert.equal(guard.refusal('2a02:810d::5'), null);
  current = { wlan0: [{ address: '2a02:810d::5', cidr: '2a02:810d::5/64' }] };
  t += 1000;
  assert.equal(guard.refusal('2a02:810d::5'), null, 'read at most every 5 s');
  t += 5000;
  assert.equal(guard.refusal('2a02:810d::5'), 'device');
  current = {};
  guard.refreshInterfaces();
  assert.equal(guard.refusal('2a02:810d::5'), null);
});

test('the exit and the gateway named in WELCOME are refused', () => {
  const guard = guardOf();
  guard.setTunnelPeers({ exit: ['81.2.69.142'], gateway: ['81.2.69.1', '2a00:1450::7', '::ffff:81.2.69.2'] });
  assert.equal(guard.refusal('81.2.69.142'), 'exit');
  assert.equal(guard.refusal('64:ff9b::5102:458e'), 'exit', 'the exit in NAT64 form');
  assert.equal(guard.refusal('81.2.69.1'), 'gateway');
  assert.equal(guard.refusal('81.2.69.2'), 'gateway');
  assert.equal(guard.refusal('2a00:1450::7'), 'gateway');
  assert.equal(guard.refusal('81.2.69.143'), null);
  guard.setTunnelPeers({ exit: ['81.2.69.143'] });
  assert.equal(guard.refusal('81.2.69.142'), null, 'a new WELCOME replaces the exit');
  assert.equal(guard.refusal('81.2.69.1'), 'gateway');
});

test('loopback opened for the devnet stays open even where the exit or gateway is loopback', () => {
  const guard = guardOf({ allowLoopback: true });
  guard.setTunnelPeers({ exit: ['127.0.0.1'], gateway: ['127.0.0.1'] });
  assert.equal(guard.refusal('127.0.0.1'), null);
});

test('restrictTo limits destinations to the listed ranges', () => {
  const guard = guardOf({ allowLoopback: true, restrictTo: ['127.0.0.0/8', '::1'] });
  assert.equal(guard.isAllowed('127.0.0.1'), true);
  assert.equal(guard.isAllowed('::1'), true);
  assert.equal(guard.refusal('93.184.216.34'), 'not-in-restrict-to');
});

test('ports: 25 refused by default, refusePorts replaces the list, restrictPorts is an allow-list', () => {
  assert.equal(guardOf().isPortAllowed(25), false);
  assert.equal(guardOf().isPortAllowed(587), true);
  assert.equal(guardOf().isPortAllowed(443), true);
  assert.equal(guardOf({ refusePorts: [] }).isPortAllowed(25), true);
  assert.equal(guardOf({ refusePorts: [25, 465, 587] }).isPortAllowed(587), false);
  assert.equal(guardOf({ restrictPorts: [8080] }).isPortAllowed(8080), true);
  assert.equal(guardOf({ restrictPorts: [8080] }).isPortAllowed(4369), false);
  assert.equal(
    guardOf({ restrictPorts: [25] }).isPortAllowed(25),
    false,
    'refused ports win over restrictPorts',
  );
});
