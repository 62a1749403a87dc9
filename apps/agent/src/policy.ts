import net from 'node:net';

export interface DestinationPolicy {
  /** Allow 127.0.0.0/8 and ::1 (tests and the devnet relay to loopback targets). */
  allowLoopback?: boolean;
  /** Allow every private, link-local, CGNAT and unique-local range as well. */
  allowPrivate?: boolean;
  /** When set, only these addresses or CIDR ranges may be reached at all (sandboxed tests, devnet). */
  restrictTo?: string[];
  /**
   * When set, only these destination ports may be reached (sandboxed tests: a fuzzed request must
   * not land on a service of the machine that holds the connection open).
   */
  restrictPorts?: number[];
}

const LOOPBACK: [string, number, 'ipv4' | 'ipv6'][] = [
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
];

const PRIVATE: [string, number, 'ipv4' | 'ipv6'][] = [
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
];

/** Never reachable through an agent, whatever the settings: unspecified, "this network", multicast, reserved, broadcast. */
const ALWAYS: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** Builds the block list for a policy (an allow-list hides inside when `restrictTo` is set). */
export function createBlockList(policy: DestinationPolicy): net.BlockList {
  const list = new net.BlockList();
  if (policy.restrictTo) restricted.set(list, allowList(policy.restrictTo));
  const ranges = [...ALWAYS];
  if (!policy.allowLoopback && !policy.allowPrivate) ranges.push(...LOOPBACK);
  if (!policy.allowPrivate) ranges.push(...PRIVATE);
  for (const [addr, prefix, type] of ranges) list.addSubnet(addr, prefix, type);
  return list;
}

/** Whether the policy lets the agent connect to destination `port`. */
export function isPortAllowed(policy: DestinationPolicy, port: number): boolean {
  return !policy.restrictPorts || policy.restrictPorts.includes(port);
}

/**
 * Whether the agent may connect to the IP literal `ip` (checked after name resolution, and the
 * checked address is the one connected to). IPv4-mapped IPv6 addresses are judged as IPv4.
 */
export function isAddressAllowed(list: net.BlockList, ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 0) return false;
  const only = restricted.get(list);
  if (only && !only.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return false;
  if (family === 6) {
    const lower = ip.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return !list.check(mapped[1]!, 'ipv4');
    // Hex form of a mapped address (::ffff:a00:1) and the deprecated IPv4-compatible form.
    const hex = /^::(ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
    if (hex) {
      const hi = Number.parseInt(hex[2]!, 16);
      const lo = Number.parseInt(hex[3]!, 16);
      const v4 = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
      if (list.check(v4, 'ipv4')) return false;
    }
    return !list.check(ip, 'ipv6');
  }
  return !list.check(ip, 'ipv4');
}

const restricted = new WeakMap<net.BlockList, net.BlockList>();

function allowList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [addr = '', prefix] = entry.split('/');
    const family = net.isIP(addr);
    if (family === 0) throw new Error(`restrictTo: not an IP address or range: ${entry}`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(prefix), type);
  }
  return list;
}
