import { gunzipSync, gzipSync } from 'node:zlib';
import { RADIUS_SEARCH_COUNTRIES } from '@pm/contracts';

/** The rows `selectPostalRows` kept: the TSV text, its row count and rows per country. */
export interface PostalSelection {
  tsv: string;
  rows: number;
  perCountry: Map<string, number>;
}

/**
 * The bundled centroid file from a fuller GeoNames centroid TSV (gzipped, header naming at least
 * cc, postal, lat and lon; see docs/rules.md §9 "Postal centroids"): the rows of the 35 Advanced
 * Search countries, with just the columns lookups need. Deterministic: Node writes no timestamp into
 * the gzip header, so the same source gives the same bytes.
 */
export function extractPostal(packed: Buffer): PostalSelection & { gz: Buffer } {
  const selected = selectPostalRows(gunzipSync(packed).toString('utf8'));
  return { ...selected, gz: gzipSync(selected.tsv, { level: 9 }) };
}

/** The rows and columns `extractPostal` keeps, from the unpacked source text. */
export function selectPostalRows(source: string): PostalSelection {
  const lines = source.split('\n');
  const header = lines[0]!.split('\t');
  const col = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`the source has no "${name}" column`);
    return i;
  };
  const [cc, postal, lat, lon] = [col('cc'), col('postal'), col('lat'), col('lon')];
  const wanted = new Set<string>(RADIUS_SEARCH_COUNTRIES);
  const perCountry = new Map<string, number>();
  const out = ['cc\tpostal\tlat\tlon'];
  for (const line of lines.slice(1)) {
    if (!line) continue;
    const cells = line.split('\t');
    if (!wanted.has(cells[cc]!)) continue;
    const [la, lo] = [Number(cells[lat]), Number(cells[lon])];
    if (!cells[postal] || !(Math.abs(la) <= 90) || !(Math.abs(lo) <= 180))
      throw new Error(`bad row: ${line}`);
    // The source's own text for the numbers: rounded to 4 decimals, trailing zeros dropped.
    out.push(`${cells[cc]}\t${cells[postal]}\t${cells[lat]}\t${cells[lon]}`);
    perCountry.set(cells[cc]!, (perCountry.get(cells[cc]!) ?? 0) + 1);
  }
  const missing = RADIUS_SEARCH_COUNTRIES.filter((c) => !perCountry.has(c));
  if (missing.length > 0) throw new Error(`no rows for ${missing.join(', ')}`);
  return { tsv: `${out.join('\n')}\n`, rows: out.length - 1, perCountry };
}
