import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import type { LatLon } from './distance.ts';
import { normalizePostal } from './normalize.ts';

/**
 * The postal centroids of the 35 Advanced Search countries (GeoNames, CC BY 4.0), committed with
 * the product; `scripts/extract-postal.ts` makes it from a fuller GeoNames file (docs/rules.md §9).
 */
export const BUNDLED_POSTAL_CENTROIDS_FILE = fileURLToPath(
  new URL('../assets/postal-centroids.tsv.gz', import.meta.url),
);

/** Postal-code centroids in memory, per country, sorted by code for binary search. */
export interface PostalCentroids {
  /** The file the rows came from. */
  readonly source: string;
  /** Rows kept (one per country and code). */
  readonly size: number;
  /** Country codes that have rows, sorted. */
  countries(): string[];
  /** Rows of one country. */
  rowCount(cc: string): number;
  /** The centre of a typed code (normalised with `normalizePostal`), or undefined when unknown. */
  lookup(cc: string, typed: string): LatLon | undefined;
}

interface CountryRows {
  codes: string[];
  lat: Float64Array;
  lon: Float64Array;
}

/** First index whose code is >= `key` (codes sorted by UTF-16 order). */
function lowerBound(codes: readonly string[], key: string): number {
  let lo = 0;
  let hi = codes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (codes[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function exact(rows: CountryRows, code: string): LatLon | undefined {
  const i = lowerBound(rows.codes, code);
  return rows.codes[i] === code ? { lat: rows.lat[i]!, lon: rows.lon[i]! } : undefined;
}

/** Mean centre of every code that starts with `prefix` (PT "1000-" for the CP4 1000). */
function prefixCentre(rows: CountryRows, prefix: string): LatLon | undefined {
  let lat = 0;
  let lon = 0;
  let n = 0;
  for (
    let i = lowerBound(rows.codes, prefix);
    i < rows.codes.length && rows.codes[i]!.startsWith(prefix);
    i++
  ) {
    lat += rows.lat[i]!;
    lon += rows.lon[i]!;
    n++;
  }
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  return n > 0 ? { lat: round(lat / n), lon: round(lon / n) } : undefined;
}

/**
 * Finds a normalised code: exactly; else as the head of longer codes the file keeps (PT "1000" of
 * "1000-001", FR "75001" of "75001 CEDEX"); else by its leading part (FR "75008 CEDEX 08" by
 * "75008", CZ "110 99" by the district "110"). A code that is not in the file still lands in its
 * area this way, which suits a radius search better than nothing.
 */
function find(rows: CountryRows, code: string): LatLon | undefined {
  const direct = exact(rows, code) ?? prefixCentre(rows, `${code} `) ?? prefixCentre(rows, `${code}-`);
  if (direct) return direct;
  const head = /^[0-9A-Z]+/.exec(code)?.[0];
  if (!head || head === code || head.length < 3) return undefined;
  return exact(rows, head) ?? prefixCentre(rows, `${head} `) ?? prefixCentre(rows, `${head}-`);
}

/** Sorts one country's parsed rows by code and merges repeated codes into their mean. */
function finish(codes: string[], lats: number[], lons: number[]): CountryRows {
  const order = codes.map((_, i) => i);
  const sorted = codes.every((c, i) => i === 0 || codes[i - 1]! < c);
  if (!sorted) order.sort((a, b) => (codes[a]! < codes[b]! ? -1 : codes[a]! > codes[b]! ? 1 : a - b));
  const out: CountryRows = {
    codes: [],
    lat: new Float64Array(codes.length),
    lon: new Float64Array(codes.length),
  };
  let n = 0;
  let run = 0;
  for (const i of order) {
    if (n > 0 && out.codes[n - 1] === codes[i]) {
      run++;
      out.lat[n - 1]! += (lats[i]! - out.lat[n - 1]!) / run;
      out.lon[n - 1]! += (lons[i]! - out.lon[n - 1]!) / run;
      continue;
    }
    out.codes.push(codes[i]!);
    out.lat[n] = lats[i]!;
    out.lon[n] = lons[i]!;
    n++;
    run = 1;
  }
  return { codes: out.codes, lat: out.lat.slice(0, n), lon: out.lon.slice(0, n) };
}

/** Reads a centroid TSV (gzip when the name ends in .gz) with a `cc postal lat lon …` header. */
async function readCentroids(path: string): Promise<PostalCentroids> {
  const input = createReadStream(path);
  let stream: NodeJS.ReadableStream & { setEncoding(e: BufferEncoding): unknown } = input;
  if (path.endsWith('.gz')) {
    const gunzip = createGunzip();
    input.on('error', (e) => gunzip.destroy(e));
    stream = input.pipe(gunzip);
  }
  stream.setEncoding('utf8');
  const parsed = new Map<string, { codes: string[]; lats: number[]; lons: number[] }>();
  let columns: { cc: number; postal: number; lat: number; lon: number } | undefined;
  let rest = '';
  const takeLine = (line: string) => {
    const cells = line.split('\t');
    if (!columns) {
      const at = (name: string) => cells.findIndex((c) => c.trim() === name);
      columns = { cc: at('cc'), postal: at('postal'), lat: at('lat'), lon: at('lon') };
      if (Object.values(columns).some((i) => i < 0)) {
        throw new Error(`${path}: the first line must name the columns cc, postal, lat and lon`);
      }
      return;
    }
    const cc = cells[columns.cc]?.trim().toUpperCase();
    const code = cells[columns.postal]?.trim();
    const lat = Number(cells[columns.lat]);
    const lon = Number(cells[columns.lon]);
    if (!cc || !code || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) return;
    let rows = parsed.get(cc);
    if (!rows) {
      rows = { codes: [], lats: [], lons: [] };
      parsed.set(cc, rows);
    }
    rows.codes.push(code);
    rows.lats.push(lat);
    rows.lons.push(lon);
  };
  for await (const chunk of stream as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (line) takeLine(line.replace(/\r$/, ''));
  }
  if (rest) takeLine(rest.replace(/\r$/, ''));
  if (!columns) throw new Error(`${path}: empty file`);

  const tables = new Map<string, CountryRows>();
  let size = 0;
  for (const [cc, rows] of parsed) {
    const table = finish(rows.codes, rows.lats, rows.lons);
    tables.set(cc, table);
    size += table.codes.length;
  }
  return {
    source: path,
    size,
    countries: () => [...tables.keys()].sort(),
    rowCount: (cc) => tables.get(cc.toUpperCase())?.codes.length ?? 0,
    lookup(cc, typed) {
      const rows = tables.get(cc.trim().toUpperCase());
      const code = rows && normalizePostal(cc, typed);
      return rows && code ? find(rows, code) : undefined;
    },
  };
}

const cache = new Map<string, Promise<PostalCentroids>>();

/**
 * Loads postal centroids once per file and keeps them (about 35 MB of heap for the bundled 35 countries, read in about half a second).
 * `path` defaults to the `POSTAL_CENTROIDS_FILE` environment variable, then to the bundled file; a
 * fuller file in the same TSV format (such as the shared `postal-centroids.tsv.gz` of 119
 * countries, with its place and region columns) works as is.
 */
export function loadPostalCentroids(path?: string): Promise<PostalCentroids> {
  const file = resolve(path || process.env.POSTAL_CENTROIDS_FILE || BUNDLED_POSTAL_CENTROIDS_FILE);
  let loading = cache.get(file);
  if (!loading) {
    loading = readCentroids(file);
    cache.set(file, loading);
    // A failed read (missing file) is not remembered: the next call tries again.
    loading.catch(() => cache.delete(file));
  }
  return loading;
}

/** The centre of a typed postal code in country `cc`, from the default centroid file. */
export async function lookupPostal(cc: string, typed: string): Promise<LatLon | undefined> {
  return (await loadPostalCentroids()).lookup(cc, typed);
}
