import {
  BYTES_PER_GB,
  ENDPOINTS,
  fillPath,
  PORT_WHITELIST_MAX,
  PORT_WHITELIST_MAX_UNLIMITED,
  type TPortPackage,
} from '@pm/contracts';

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Rules §5: one IPv4 address, each octet 0-255. */
export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => OCTET.test(p));
}

/** The whitelist field's entries (comma separated, blanks dropped). */
export function whitelistEntries(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * The whitelist field's state (rules §5): an invalid entry (or too many) is an error; Save is
 * enabled only when the field was touched, is not empty (ports) and every entry is valid.
 */
export function whitelistState(
  text: string,
  o: { touched: boolean; isUnlimited: boolean },
): { error: string | null; canSave: boolean } {
  const entries = whitelistEntries(text);
  const max = o.isUnlimited ? PORT_WHITELIST_MAX_UNLIMITED : PORT_WHITELIST_MAX;
  let error: string | null = null;
  const bad = entries.find((e) => !isIpv4(e));
  if (bad) error = `${bad} is not an IPv4 address`;
  else if (entries.length > max) error = `At most ${max} address${max === 1 ? '' : 'es'}`;
  return { error, canSave: o.touched && entries.length > 0 && error === null };
}

/** Rules §5: Buy is disabled when the price exceeds the balance or is 0 or less. */
export function canBuy(priceC: number | undefined, balanceC: number | undefined): boolean {
  return priceC !== undefined && balanceC !== undefined && priceC > 0 && priceC <= balanceC;
}

/** Traffic used, as the table shows it: "12.3 MB of 1 Gb" (or "… / unlimited"). */
export function trafficText(p: TPortPackage): string {
  const used = p.stats.upload + p.stats.download;
  const usedText =
    used >= BYTES_PER_GB / 10
      ? `${(used / BYTES_PER_GB).toFixed(2)} Gb`
      : `${(used / 1024 / 1024).toFixed(1)} MB`;
  return p.traffic.type === 'unlimit' ? `${usedText} (unlimited)` : `${usedText} of ${p.traffic.amount} Gb`;
}

/** The geo of a package in one line: "US / NY / New York, Both". */
export function geoText(p: TPortPackage): string {
  const conn = { wifi: 'WiFi', mobile: 'Cellular', both: 'Both' }[p.geo.connection_type];
  return `${[p.geo.country, p.geo.state, p.geo.city].filter(Boolean).join(' / ')}, ${conn}`;
}

/** The rotation link of one port (rules §2: a GET on the ports host, the contract's `rotatePortIp`). */
export function rotationLink(portsApiUrl: string, port: number, apiKey: string): string {
  const path = fillPath(ENDPOINTS.rotatePortIp.path, { port: String(port), key: apiKey });
  return `${portsApiUrl.replace(/\/+$/, '')}${path}`;
}

/** The ports of a package in ranges: "30000-30099". */
export function portRanges(ports: readonly number[]): string {
  const out: string[] = [];
  let start: number | undefined;
  let prev: number | undefined;
  for (const p of [...ports].sort((a, b) => a - b)) {
    if (start !== undefined && prev !== undefined && p === prev + 1) {
      prev = p;
      continue;
    }
    if (start !== undefined) out.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = p;
    prev = p;
  }
  if (start !== undefined) out.push(start === prev ? `${start}` : `${start}-${prev}`);
  return out.join(', ');
}

/**
 * A package's ports in one short line for the phone's list, where two packages of one place would
 * otherwise look alike: "20683-20782 (100 ports)", the first two ranges and how many more.
 */
export function portsSummary(ports: readonly number[]): string {
  const ranges = portRanges(ports).split(', ').filter(Boolean);
  const count = `${ports.length} ${ports.length === 1 ? 'port' : 'ports'}`;
  if (ranges.length === 0) return 'No ports yet';
  const shown = ranges.slice(0, 2).join(', ');
  const more = ranges.length > 2 ? ` and ${ranges.length - 2} more` : '';
  return ports.length === 1 ? shown : `${shown}${more} (${count})`;
}

const STATUS_WORDS: Record<TPortPackage['status']['type'], string> = {
  active: 'Active',
  suspend: 'Suspended',
  refunded: 'Refunded',
};

/** The status chip's word. */
export const statusText = (p: TPortPackage): string => STATUS_WORDS[p.status.type];
