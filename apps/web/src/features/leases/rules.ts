/** My Proxies rules: the connection strings (on the ports the lease answer names), the whitelist of rules §5, the filter box. Pure. */
import {
  MAX_WHITELIST_ENTRIES,
  parseWhitelist,
  type TLease,
  type TSocks,
  WHITELIST_MIN_PREFIX,
} from '@pm/contracts';
import { countryName } from '../../lib/countries.ts';
import { sharedLabel } from '../../lib/format/agent.ts';

/** The address the connection string dials: the node's IP, or its host name when the IP is unknown. */
export const socksAddress = (socks: Pick<TSocks, 'ip' | 'host'>): string => socks.ip || socks.host;

const encode = (s: string) => encodeURIComponent(s);

/**
 * What "Copy connection string" copies: a `socks5h://` URL with the lease's credentials and first
 * port, which `curl -x` (and most clients) take as pasted; `socks5h` resolves names through the proxy.
 */
export const connectionString = (socks: TSocks): string =>
  `socks5h://${encode(socks.user)}:${encode(socks.pwd)}@${socksAddress(socks)}:${socks.ports[0]}`;

/** The lease's HTTP proxy (Basic auth with the same login), beside SOCKS5: `http://USER:PASSWORD@IP:PORT`. */
export const httpConnectionString = (socks: TSocks): string =>
  `http://${encode(socks.user)}:${encode(socks.pwd)}@${socksAddress(socks)}:${socks.httpPort}`;

/** The format the connection string follows, for the button's explanation. */
export const CONNECTION_STRING_FORMAT = 'socks5h://USERNAME:PASSWORD@SOCKS_IP:PORT';

/** How a masked password is shown (rules §2: masked to 10 dots, whatever its length). */
export const MASKED_PASSWORD = '••••••••••';

export type WhitelistCheck = { ok: true; entries: string[] } | { ok: false; error: string };

/**
 * The no-auth port's whitelist (rules §5): comma-separated IPv4 addresses (or CIDR ranges up to /24,
 * which the server also takes), each octet 0-255. Empty is allowed and means nobody.
 */
export function checkWhitelist(text: string): WhitelistCheck {
  const parsed = parseWhitelist(text);
  if (!parsed.ok) {
    const error =
      parsed.problem === 'tooWide'
        ? `Range wider than /${WHITELIST_MIN_PREFIX}: ${parsed.bad}`
        : `Not an IPv4 address: ${parsed.bad}`;
    return { ok: false, error };
  }
  if (parsed.entries.length > MAX_WHITELIST_ENTRIES) {
    return { ok: false, error: `At most ${MAX_WHITELIST_ENTRIES} addresses` };
  }
  return { ok: true, entries: parsed.entries };
}

/** Save is enabled once the field was changed and every entry is valid. */
export const canSaveWhitelist = (text: string, saved: string): boolean =>
  text !== saved && checkWhitelist(text).ok;

/** The filter box of My Proxies: matches IP, lease id, note, place, ISP and country, case-insensitively. */
export function matchesLeaseFilter(lease: TLease, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (needle === '') return true;
  const { ip, loc, host } = lease.currentInfo;
  return [
    lease.id,
    ip,
    host,
    lease.note,
    loc.city,
    loc.reg,
    loc.zip,
    loc.isp,
    loc.cc,
    countryName(loc.cc),
  ].some((field) => field.toLowerCase().includes(needle));
}

/** The Shared line of a lease: "Private" for a private lease, else "N of 4" with the agent's leases now. */
export const leaseSharedLabel = (lease: Pick<TLease, 'exc' | 'currentInfo'>): string =>
  lease.exc ? 'Private' : sharedLabel(Math.max(1, lease.currentInfo.leases));

/** The Type column and card line of a lease. */
export const leaseTypeLabel = (lease: Pick<TLease, 'exc'>): 'Private' | 'Shared' =>
  lease.exc ? 'Private' : 'Shared';
