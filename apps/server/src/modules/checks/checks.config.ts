/**
 * The checks module's settings: the DNS blacklist zones and resolver, the score providers' base
 * URLs and keys, and the score check's price. `main.ts` reads them from the environment
 * (`readChecksEnv`); the launcher and tests pass them as data.
 */
import { createEnvReader } from '../../platform/env-reader.ts';

/** One DNSBL zone; `codes` names the lists of a zone that answers one code per list (Spamhaus ZEN). */
export interface DnsblZone {
  zone: string;
  /** List id of any 127.0.0.x answer not in `codes`. */
  id: string;
  codes?: Readonly<Record<string, string>> | undefined;
}

/** What the checks module needs from outside. */
export interface ChecksSettings {
  dnsbl: {
    /** `host:port` of the DNS server asked (a recursive resolver of the operator's own); empty: the system's. */
    server: string;
    zones: readonly DnsblZone[];
    /** Per-query timeout. */
    timeoutMs: number;
    /** How old a lookup may get before the sweep does it again. */
    recheckMs: number;
    /** Addresses one sweep looks up at most (the sweep runs every minute). */
    batchSize: number;
  };
  score: {
    /** What one score check costs the customer. */
    priceC: number;
    /** How long a quote's one-time token can be spent. */
    quoteTtlMs: number;
    /** Time each provider gets. */
    timeoutMs: number;
    getipintel: { url: string; contact: string };
    ipqs: { url: string; key: string };
    minfraud: { url: string; accountId: string; licenseKey: string };
  };
  /** A speed check not finished this long after it was asked counts as failed (its node is gone). */
  speedTimeoutMs: number;
  /** The HTTP client for the providers (tests may put faults in between). */
  fetch?: typeof fetch | undefined;
}

/** Spamhaus ZEN answers one code per list (RFC 5782; apps/server/README.md, "Checks"). */
const ZEN_CODES: Record<string, string> = {
  '127.0.0.2': 'spamhaus-sbl',
  '127.0.0.3': 'spamhaus-css',
  '127.0.0.4': 'spamhaus-xbl',
  '127.0.0.5': 'spamhaus-xbl',
  '127.0.0.6': 'spamhaus-xbl',
  '127.0.0.7': 'spamhaus-xbl',
  '127.0.0.9': 'spamhaus-drop',
  '127.0.0.10': 'spamhaus-pbl',
  '127.0.0.11': 'spamhaus-pbl',
};

/** The zones looked up by default, with the list id each answer means. */
export const DEFAULT_DNSBL_ZONES: readonly DnsblZone[] = [
  { zone: 'zen.spamhaus.org', id: 'spamhaus-sbl', codes: ZEN_CODES },
  { zone: 'b.barracudacentral.org', id: 'barracuda' },
  { zone: 'bl.spamcop.net', id: 'spamcop' },
  { zone: 'dnsbl-1.uceprotect.net', id: 'uceprotect-l1' },
  { zone: 'dnsbl-2.uceprotect.net', id: 'uceprotect-l2' },
  { zone: 'dnsbl-3.uceprotect.net', id: 'uceprotect-l3' },
  { zone: 'dnsbl.dronebl.org', id: 'dronebl' },
  { zone: 'psbl.surriel.com', id: 'psbl' },
  { zone: 'bl.mailspike.net', id: 'mailspike' },
  { zone: 'bl.blocklist.de', id: 'blocklistde' },
  { zone: 'torexit.dan.me.uk', id: 'dan-tor' },
];

/** The real services; keys empty (a provider without its key answers as failed). */
export const DEFAULT_CHECKS_SETTINGS: ChecksSettings = {
  dnsbl: { server: '', zones: DEFAULT_DNSBL_ZONES, timeoutMs: 2000, recheckMs: 6 * 3600_000, batchSize: 500 },
  score: {
    priceC: 50,
    quoteTtlMs: 10 * 60_000,
    timeoutMs: 8000,
    getipintel: { url: 'https://check.getipintel.net', contact: '' },
    ipqs: { url: 'https://www.ipqualityscore.com', key: '' },
    minfraud: { url: 'https://minfraud.maxmind.com', accountId: '', licenseKey: '' },
  },
  speedTimeoutMs: 90_000,
};

/** A zone from the environment: `zone` (id from the defaults, else the zone) or `zone=id`. */
function parseZone(spec: string): DnsblZone {
  const [zone = '', id] = spec.split('=').map((s) => s.trim());
  const known = DEFAULT_DNSBL_ZONES.find((z) => z.zone === zone);
  return id ? { zone, id } : (known ?? { zone, id: zone });
}

/**
 * Reads the checks settings from environment variables (listed in the README's configuration
 * table), pushing a message for each bad value onto `problems`.
 */
export function readChecksEnv(env: NodeJS.ProcessEnv, problems: string[]): ChecksSettings {
  const d = DEFAULT_CHECKS_SETTINGS;
  const { str, int, url } = createEnvReader(env, problems);
  const server = str('DNSBL_SERVER', '');
  if (server && !/^[\w.:[\]-]+$/.test(server))
    problems.push(`DNSBL_SERVER must be host[:port], got "${server}"`);
  const zonesRaw = env.DNSBL_ZONES?.trim();
  return {
    dnsbl: {
      server,
      zones: zonesRaw
        ? zonesRaw
            .split(',')
            .filter((s) => s.trim() !== '')
            .map(parseZone)
        : d.dnsbl.zones,
      timeoutMs: int('DNSBL_TIMEOUT_MS', d.dnsbl.timeoutMs, 100, 30_000),
      recheckMs: int('DNSBL_RECHECK_HOURS', d.dnsbl.recheckMs / 3600_000, 1, 24 * 30) * 3600_000,
      batchSize: d.dnsbl.batchSize,
    },
    score: {
      priceC: int('SCORECHECK_PRICE_C', d.score.priceC, 0, 100_000),
      quoteTtlMs: d.score.quoteTtlMs,
      timeoutMs: int('SCORECHECK_TIMEOUT_MS', d.score.timeoutMs, 500, 60_000),
      getipintel: {
        url: url('GETIPINTEL_URL', d.score.getipintel.url),
        contact: str('GETIPINTEL_CONTACT', ''),
      },
      ipqs: { url: url('IPQS_URL', d.score.ipqs.url), key: str('IPQS_KEY', '') },
      minfraud: {
        url: url('MINFRAUD_URL', d.score.minfraud.url),
        accountId: str('MINFRAUD_ACCOUNT_ID', ''),
        licenseKey: str('MINFRAUD_LICENSE_KEY', ''),
      },
    },
    speedTimeoutMs: d.speedTimeoutMs,
  };
}
