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
