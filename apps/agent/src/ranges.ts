import net from 'node:net';
import { ipv6Bytes } from '@pm/tunnel';

export { ipv6Bytes };

/**
 * How a special-purpose range is treated: `loopback` opens with `allowLoopback` (tests, devnet) or
 * `allowPrivate`, `private` opens with `allowPrivate` only, `reserved` never opens.
 */
export type RangeClass = 'loopback' | 'private' | 'reserved';

export interface SpecialRange {
  cidr: string;
  cls: RangeClass;
  /** What the range is (the IANA registry's name, or why it is on the list). */
  name: string;
  /** One address inside it (the table's tests refuse each). */
  sample: string;
}

/**
 * IPv4 ranges an agent refuses: the IANA IPv4 Special-Purpose Address Registry (every row that is
 * not globally reachable, plus the deprecated 6to4 relay anycast), multicast and the reserved block.
 * Globally reachable rows (AS112 192.31.196.0/24 and 192.175.48.0/24, AMT 192.52.193.0/24) are
 * ordinary internet hosts and stay reachable.
 */
export const IPV4_SPECIAL: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', cls: 'reserved', name: '"this network" (RFC 791)', sample: '0.1.2.3' },
  { cidr: '10.0.0.0/8', cls: 'private', name: 'private use (RFC 1918)', sample: '10.1.2.3' },
  {
    cidr: '100.64.0.0/10',
    cls: 'private',
    name: 'shared address space, CGNAT (RFC 6598)',
    sample: '100.64.0.1',
  },
  { cidr: '127.0.0.0/8', cls: 'loopback', name: 'loopback (RFC 1122)', sample: '127.0.0.1' },
  {
    cidr: '169.254.0.0/16',
    cls: 'private',
    name: 'link local, cloud metadata (RFC 3927)',
    sample: '169.254.169.254',
  },
  { cidr: '172.16.0.0/12', cls: 'private', name: 'private use (RFC 1918)', sample: '172.31.255.254' },
  {
    cidr: '192.0.0.0/24',
    cls: 'reserved',
    name: 'IETF protocol assignments, DS-Lite, NAT64 discovery (RFC 6890)',
    sample: '192.0.0.170',
  },
  { cidr: '192.0.2.0/24', cls: 'reserved', name: 'documentation TEST-NET-1 (RFC 5737)', sample: '192.0.2.1' },
  {
    cidr: '192.88.99.0/24',
    cls: 'reserved',
    name: 'deprecated 6to4 relay anycast (RFC 7526)',
    sample: '192.88.99.1',
  },
  { cidr: '192.168.0.0/16', cls: 'private', name: 'private use (RFC 1918)', sample: '192.168.1.1' },
  {
    cidr: '198.18.0.0/15',
    cls: 'private',
    name: 'benchmarking; local fake-IP DNS (RFC 2544)',
    sample: '198.19.0.1',
  },
  {
    cidr: '198.51.100.0/24',
    cls: 'reserved',
    name: 'documentation TEST-NET-2 (RFC 5737)',
    sample: '198.51.100.1',
  },
  {
    cidr: '203.0.113.0/24',
    cls: 'reserved',
    name: 'documentation TEST-NET-3 (RFC 5737)',
    sample: '203.0.113.1',
  },
  { cidr: '224.0.0.0/4', cls: 'reserved', name: 'multicast (RFC 5771)', sample: '224.0.0.1' },
  {
    cidr: '240.0.0.0/4',
    cls: 'reserved',
    name: 'reserved, limited broadcast (RFC 1112, RFC 919)',
    sample: '255.255.255.255',
  },
];

/**
 * IPv6 ranges an agent refuses, from the IANA IPv6 Special-Purpose Address Registry. Besides these,
 * an IPv6 address outside global unicast 2000::/3 is refused (unassigned or special), unless it
 * embeds an IPv4 address (`IPV4_EMBEDDINGS`), which the IPv4 rules then judge.
 */
export const IPV6_SPECIAL: readonly SpecialRange[] = [
  { cidr: '::/128', cls: 'reserved', name: 'unspecified (RFC 4291)', sample: '::' },
  { cidr: '::1/128', cls: 'loopback', name: 'loopback (RFC 4291)', sample: '::1' },
  { cidr: '100::/64', cls: 'reserved', name: 'discard-only (RFC 6666)', sample: '100::1' },
  { cidr: '100:0:0:1::/64', cls: 'reserved', name: 'dummy prefix (RFC 9780)', sample: '100:0:0:1::1' },
  {
    cidr: '2001::/23',
    cls: 'reserved',
    name: 'IETF protocol assignments, Teredo 2001::/32 (RFC 2928)',
    sample: '2001::1',
  },
  { cidr: '2001:db8::/32', cls: 'reserved', name: 'documentation (RFC 3849)', sample: '2001:db8::1' },
  { cidr: '3fff::/20', cls: 'reserved', name: 'documentation (RFC 9637)', sample: '3fff::1' },
  { cidr: '5f00::/16', cls: 'reserved', name: 'SRv6 SIDs (RFC 9602)', sample: '5f00::1' },
  { cidr: 'fc00::/7', cls: 'private', name: 'unique local (RFC 4193)', sample: 'fd12:3456::1' },
  { cidr: 'fe80::/10', cls: 'private', name: 'link local (RFC 4291)', sample: 'fe80::1' },
  { cidr: 'fec0::/10', cls: 'private', name: 'site local, deprecated (RFC 3879)', sample: 'fec0::1' },
  { cidr: 'ff00::/8', cls: 'reserved', name: 'multicast (RFC 4291)', sample: 'ff02::1' },
];

/** IPv6 ranges whose addresses carry an IPv4 address; the agent judges that address by the IPv4 rules. */
export const IPV4_EMBEDDINGS: readonly { cidr: string; name: string; decode: (b: Uint8Array) => string[] }[] =
  [
    { cidr: '::ffff:0:0/96', name: 'IPv4-mapped (RFC 4291)', decode: (b) => [v4(b, 12)] },
    { cidr: '::/96', name: 'IPv4-compatible, deprecated (RFC 4291)', decode: (b) => [v4(b, 12)] },
    { cidr: '64:ff9b::/96', name: 'NAT64 well-known prefix (RFC 6052)', decode: (b) => [v4(b, 12)] },
    {
      cidr: '64:ff9b:1::/48',
      name: 'NAT64 local-use prefix (RFC 8215): the /96 layout, and each RFC 6052 layout whose suffix is zero',
      decode: localUseNat64,
    },
    { cidr: '2002::/16', name: '6to4 (RFC 3056)', decode: (b) => [v4(b, 2)] },
  ];

/**
 * RFC 6052 places the IPv4 address by the operator's prefix length (/48, /56, /64: around the zero
 * u-octet, then a zero suffix; /96: the last 32 bits). The agent cannot know which its network
 * uses, so it judges the /96 reading always and every other reading that fits its layout. (A /48
 * layout address then reads as 0.0.0.0 in the /96 layout too, and is refused: fail closed.)
 */
function localUseNat64(b: Uint8Array): string[] {
  const out = [v4(b, 12)];
  const layouts: [octets: number[], suffixFrom: number][] = [
    [[6, 7, 9, 10], 11],
    [[7, 9, 10, 11], 12],
    [[9, 10, 11, 12], 13],
  ];
  for (const [octets, suffixFrom] of layouts) {
    if (b[8] === 0 && b.subarray(suffixFrom).every((x) => x === 0))
      out.push(octets.map((i) => b[i]).join('.'));
  }
  return out;
}

function v4(b: Uint8Array, at: number): string {
  return `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
}

/** Whether `bytes` lies in the IPv6 `cidr`. */
export function inIpv6Range(bytes: Uint8Array, cidr: string): boolean {
  const [addr = '', bits = '128'] = cidr.split('/');
  const base = ipv6Bytes(addr);
  if (!base) return false;
  let left = Number(bits);
  for (let i = 0; i < 16 && left > 0; i++, left -= 8) {
    const mask = left >= 8 ? 255 : (255 << (8 - left)) & 255;
    if ((bytes[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

/**
 * The IPv4 addresses an IPv6 address embeds (NAT64, 6to4, mapped, compatible), or an empty list.
 * `::` and `::1` are themselves, not IPv4-compatible forms of 0.0.0.0 and 0.0.0.1.
 */
export function embeddedIpv4(bytes: Uint8Array): string[] {
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15]! <= 1) return [];
  for (const e of IPV4_EMBEDDINGS) if (inIpv6Range(bytes, e.cidr)) return e.decode(bytes);
  return [];
}

/** Builds one BlockList per class from a table. */
export function classLists(rows: readonly SpecialRange[]): Map<RangeClass, net.BlockList> {
  const lists = new Map<RangeClass, net.BlockList>();
  for (const row of rows) {
    const [addr = '', bits = ''] = row.cidr.split('/');
    const list = lists.get(row.cls) ?? new net.BlockList();
    lists.set(row.cls, list);
    list.addSubnet(addr, Number(bits), net.isIPv4(addr) ? 'ipv4' : 'ipv6');
  }
  return lists;
}
