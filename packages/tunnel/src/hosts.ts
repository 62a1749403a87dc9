import net from 'node:net';

/** Strips the IPv4-mapped prefix so whitelists and logs see plain IPv4. */
export function normalizeIp(ip: string | undefined): string {
  if (!ip) return '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * Whether `host` names this machine only (127.0.0.0/8, ::1, localhost): the one place a tunnel
 * may run without TLS (the devnet, the standalone benchmark, tests).
 */
export function isLoopbackHost(host: string): boolean {
  const h = normalizeIp(host.replace(/^\[(.*)\]$/, '$1'));
  return h === 'localhost' || h === '::1' || (net.isIPv4(h) && h.startsWith('127.'));
}

/** The 16 bytes of an IPv6 literal (`::`, dotted tail), or null when it is not one (a zone id included). */
export function ipv6Bytes(ip: string): Uint8Array | null {
  if (!net.isIPv6(ip) || ip.includes('%')) return null;
  let text = ip.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 255;
  });
  return bytes;
}

/**
 * Who a connection comes from, as the gateway compares sources: an IPv4 address (mapped forms
 * unwrapped), or an IPv6 address's /64 (one home network or device, whatever privacy address it uses).
 */
export function sourceKey(ip: string | undefined): string {
  const plain = normalizeIp(ip);
  const bytes = net.isIPv6(plain) ? ipv6Bytes(plain) : null;
  if (!bytes) return plain;
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(':')}::/64`;
}
