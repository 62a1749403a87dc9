import net from 'node:net';

/**
 * Builds a matcher for a whitelist of IPv4 addresses and CIDR ranges ("203.0.113.7",
 * "198.51.100.0/24"); IPv6 entries work too. Invalid entries are ignored (the API validates them).
 */
export function createWhitelistMatcher(whitelist: readonly string[]): (ip: string) => boolean {
  const list = new net.BlockList();
  for (const raw of whitelist) {
    const entry = raw.trim();
    const slash = entry.indexOf('/');
    const addr = slash < 0 ? entry : entry.slice(0, slash);
    const family = net.isIP(addr);
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (slash < 0) {
      list.addAddress(addr, type);
      continue;
    }
    const prefix = Number(entry.slice(slash + 1));
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) continue;
    list.addSubnet(addr, prefix, type);
  }
  return (ip: string) => {
    const plain = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
    const family = net.isIP(plain);
    return family !== 0 && list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  };
}
