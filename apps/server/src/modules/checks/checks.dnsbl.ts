/**
 * DNS blacklist lookups (RFC 5782) with Node's resolver: `4.3.2.1.<zone>` for 1.2.3.4 (IPv6: 32
 * reversed nibbles). NXDOMAIN or no A record means not listed; 127.0.0.x means listed;
 * 127.255.255.x (Spamhaus: typo, public resolver, too many queries) and any other answer, a
 * timeout or a failing server are errors: neither listed nor clean.
 */
import { Resolver } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import type { DnsblZone } from './checks.config.ts';

/** What the lookups of one address found. */
export interface DnsblResult {
  /** List ids the address is on, each once (ignored lists not yet dropped). */
  listIds: string[];
  /** Zones that gave no usable answer. */
  errorZones: string[];
}

/** The query name of `ip` in `zone`; undefined for something that is not an IP address. */
export function dnsblQueryName(ip: string, zone: string): string | undefined {
  if (isIPv4(ip)) return `${ip.split('.').reverse().join('.')}.${zone}`;
  if (!isIPv6(ip)) return undefined;
  // Expand '::' so the address has its 8 groups of 4 hex digits, then reverse the 32 nibbles.
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const nibbles = groups.map((g) => g.padStart(4, '0')).join('');
  return `${[...nibbles].reverse().join('.')}.${zone}`;
}

/** One answer of a zone: the list it names, or an error. */
export function classifyAnswer(zone: DnsblZone, address: string): { listId: string } | { error: string } {
  if (address.startsWith('127.255.255.')) return { error: `error code ${address}` };
  if (!address.startsWith('127.0.0.')) return { error: `unexpected answer ${address}` };
  return { listId: zone.codes?.[address] ?? zone.id };
}

/** A DNSBL checker over one resolver (the configured server, else the system's). */
export function createDnsblChecker(options: {
  server: string;
  zones: readonly DnsblZone[];
  timeoutMs: number;
}) {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
  if (options.server) resolver.setServers([options.server]);

  async function lookupZone(ip: string, zone: DnsblZone): Promise<{ listIds: string[]; error: boolean }> {
    const name = dnsblQueryName(ip, zone.zone);
    if (!name) return { listIds: [], error: true };
    let answers: string[];
    try {
      answers = await resolver.resolve4(name);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // NXDOMAIN (ENOTFOUND) and an empty answer (ENODATA) are "not listed".
      if (code === 'ENOTFOUND' || code === 'ENODATA') return { listIds: [], error: false };
      return { listIds: [], error: true };
    }
    const listIds: string[] = [];
    let error = false;
    for (const a of answers) {
      const c = classifyAnswer(zone, a);
      if ('listId' in c) listIds.push(c.listId);
      else error = true;
    }
    return { listIds, error };
  }

  return {
    /** Looks `ip` up in every zone at once. */
    async check(ip: string): Promise<DnsblResult> {
      const results = await Promise.all(options.zones.map((z) => lookupZone(ip, z)));
      const listIds = [...new Set(results.flatMap((r) => r.listIds))].sort();
      const errorZones = options.zones.filter((_, i) => results[i]!.error).map((z) => z.zone);
      return { listIds, errorZones };
    },
    cancel() {
      resolver.cancel();
    },
  };
}

export type DnsblChecker = ReturnType<typeof createDnsblChecker>;
