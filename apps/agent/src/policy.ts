import net from 'node:net';
import os from 'node:os';
import {
  classLists,
  embeddedIpv4,
  IPV4_SPECIAL,
  IPV6_SPECIAL,
  inIpv6Range,
  ipv6Bytes,
  type RangeClass,
} from './ranges.ts';

/** Destination ports refused unless the operator sets `refusePorts`: 25, so customers cannot send mail from the device's address. */
export const DEFAULT_REFUSED_PORTS: readonly number[] = [25];

/** How often the device's interface list is read again at most (it is also read again at each tunnel WELCOME). */
export const INTERFACES_REFRESH_MS = 5000;

/** A device's interface prefix wider than this (a VPN's catch-all route) refuses its own address only. */
const MIN_ONLINK_PREFIX = { ipv4: 16, ipv6: 48 } as const;

export interface DestinationPolicy {
  /** Allow 127.0.0.0/8 and ::1 (tests and the devnet relay to loopback targets). */
  allowLoopback?: boolean;
  /** Allow every private, link-local, CGNAT and unique-local range as well (and the device's own addresses in them). */
  allowPrivate?: boolean;
  /** When set, only these addresses or CIDR ranges may be reached at all (sandboxed tests, devnet). */
  restrictTo?: string[];
  /**
   * When set, only these destination ports may be reached (sandboxed tests: a fuzzed request must
   * not land on a service of the machine that holds the connection open).
   */
  restrictPorts?: number[];
  /** Destination ports refused (default `DEFAULT_REFUSED_PORTS`, i.e. 25; `[]` refuses none). */
  refusePorts?: number[];
  /** The device's interfaces (default `os.networkInterfaces`; tests inject a list). */
  networkInterfaces?: () => NodeJS.Dict<os.NetworkInterfaceInfo[]>;
}

/** Why an address is refused (`null`: allowed). */
export type Refusal =
  | RangeClass
  | 'invalid'
  | 'not-global-unicast'
  | 'not-in-restrict-to'
  | 'device'
  | 'exit'
  | 'gateway';

export interface EgressGuard {
  /** Why the agent may not connect to the IP literal `ip`, or null when it may (checked after name resolution). */
  refusal(ip: string): Refusal | null;
  isAllowed(ip: string): boolean;
  isPortAllowed(port: number): boolean;
  /** The addresses the gateway names in WELCOME: the agent's exit as it sees it, and its own. */
  setTunnelPeers(peers: { exit?: string[]; gateway?: string[] }): void;
  /** Reads the device's interface addresses and on-link prefixes again now. */
  refreshInterfaces(): void;
}

type Family = 'ipv4' | 'ipv6';

/**
 * The agent's egress guard: a customer must never reach the device's own services or its home
 * network. Refuses the special-purpose ranges (`ranges.ts`, IPv4 forms inside IPv6 judged as IPv4),
 * the device's interface addresses and on-link prefixes, the agent's exit address and the gateway's
 * addresses. `allowLoopback` / `allowPrivate` open their ranges, the device's addresses in them too.
 */
export function createEgressGuard(policy: DestinationPolicy, now: () => number = Date.now): EgressGuard {
  const v4 = classLists(IPV4_SPECIAL);
  const only = policy.restrictTo ? allowList(policy.restrictTo) : null;
  const refusedPorts = new Set(policy.refusePorts ?? DEFAULT_REFUSED_PORTS);
  const readInterfaces = policy.networkInterfaces ?? os.networkInterfaces;
  let device = new net.BlockList();
  let deviceReadAt = Number.NEGATIVE_INFINITY;
  let exit = new net.BlockList();
  let gateway = new net.BlockList();

  const isOpened = (cls: RangeClass): boolean =>
    cls === 'loopback'
      ? Boolean(policy.allowLoopback || policy.allowPrivate)
      : cls === 'private' && Boolean(policy.allowPrivate);

  const refreshInterfaces = () => {
    deviceReadAt = now();
    const list = new net.BlockList();
    for (const infos of Object.values(readInterfaces())) {
      for (const info of infos ?? []) {
        const family: Family = info.family === 'IPv4' ? 'ipv4' : 'ipv6';
        const address = info.address.split('%')[0]!;
        if (net.isIP(address) === 0) continue;
        list.addAddress(address, family);
        const bits = Number(info.cidr?.split('/')[1]);
        if (Number.isInteger(bits) && bits >= MIN_ONLINK_PREFIX[family])
          list.addSubnet(address, bits, family);
      }
    }
    device = list;
  };

  /** The device, exit and gateway lists, for an address no special range covers. */
  const peerRefusal = (ip: string, family: Family): Refusal | null => {
    if (now() - deviceReadAt >= INTERFACES_REFRESH_MS) refreshInterfaces();
    if (device.check(ip, family)) return 'device';
    if (exit.check(ip, family)) return 'exit';
    if (gateway.check(ip, family)) return 'gateway';
    return null;
  };

  const judgeV4 = (ip: string): Refusal | null => {
    for (const [cls, list] of v4) {
      if (list.check(ip, 'ipv4')) return isOpened(cls) ? null : cls;
    }
    return peerRefusal(ip, 'ipv4');
  };

  const judgeV6 = (ip: string): Refusal | null => {
    const bytes = ipv6Bytes(ip);
    if (!bytes) return 'invalid';
    const embedded = embeddedIpv4(bytes);
    if (embedded.length > 0) {
      for (const addr of embedded) {
        const r = judgeV4(addr);
        if (r) return r;
      }
      return peerRefusal(ip, 'ipv6');
    }
    const row = IPV6_SPECIAL.find((r) => inIpv6Range(bytes, r.cidr));
    if (row) return isOpened(row.cls) ? null : row.cls;
    if (!inIpv6Range(bytes, '2000::/3')) return 'not-global-unicast';
    return peerRefusal(ip, 'ipv6');
  };

  const refusal = (ip: string): Refusal | null => {
    const family = net.isIP(ip);
    if (family === 0 || ip.includes('%')) return 'invalid';
    if (only && !only.check(ip, family === 4 ? 'ipv4' : 'ipv6')) return 'not-in-restrict-to';
    return family === 4 ? judgeV4(ip) : judgeV6(ip);
  };

  return {
    refusal,
    isAllowed: (ip) => refusal(ip) === null,
    isPortAllowed: (port) =>
      !refusedPorts.has(port) && (!policy.restrictPorts || policy.restrictPorts.includes(port)),
    setTunnelPeers(peers) {
      if (peers.exit) exit = addressList(peers.exit);
      if (peers.gateway) gateway = addressList(peers.gateway);
    },
    refreshInterfaces,
  };
}

/** A list of single addresses (IPv4 ones also in their mapped form's IPv4, which `refusal` decodes). */
function addressList(addresses: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const raw of addresses) {
    const addr = raw.startsWith('::ffff:') && net.isIPv4(raw.slice(7)) ? raw.slice(7) : raw;
    const family = net.isIP(addr);
    if (family !== 0) list.addAddress(addr, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

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
