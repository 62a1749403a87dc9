import net from 'node:net';
import { whitelistEntryProblem } from '@pm/contracts';
import { normalizeIp } from '@pm/tunnel';

export interface StoredWhitelist {
  /** The entries that open the no-auth port: IPv4 addresses and ranges no wider than /24. */
  allowed: net.BlockList;
  /** Entries dropped as malformed or too wide (the API refuses them; rows written around it may hold them). */
  dropped: string[];
}

/**
 * Reads a lease's stored whitelist with the API's rules (`whitelistEntryProblem` of
 * `@pm/contracts`): IPv4 addresses and CIDR ranges up to /24. Anything else, a malformed entry or a
 * range such as 0.0.0.0/0 stored before the limit, opens nothing and is reported in `dropped`.
 */
export function readStoredWhitelist(whitelist: readonly unknown[]): StoredWhitelist {
  const allowed = new net.BlockList();
  const dropped: string[] = [];
  for (const raw of whitelist) {
    const entry = typeof raw === 'string' ? raw.trim() : '';
    if (!entry || whitelistEntryProblem(entry) !== null) {
      dropped.push(String(raw));
      continue;
    }
    const [addr = '', bits] = entry.split('/');
    if (bits === undefined) allowed.addAddress(addr, 'ipv4');
    else allowed.addSubnet(addr, Number(bits), 'ipv4');
  }
  return { allowed, dropped };
}

/** Whether a customer's source address (IPv4, or its IPv4-mapped IPv6 form) is on the list. */
export function isWhitelisted(allowed: net.BlockList, sourceIp: string): boolean {
  const ip = normalizeIp(sourceIp);
  return net.isIPv4(ip) && allowed.check(ip, 'ipv4');
}

/** A matcher for a whitelist (the in-memory directory); entries are read as `readStoredWhitelist` reads them. */
export function createWhitelistMatcher(whitelist: readonly string[]): (ip: string) => boolean {
  const { allowed } = readStoredWhitelist(whitelist);
  return (ip: string) => isWhitelisted(allowed, ip);
}
