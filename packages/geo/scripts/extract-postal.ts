/**
 * Makes `packages/geo/assets/postal-centroids.tsv.gz`: the rows of the 35 Advanced Search countries
 * (RADIUS_SEARCH_COUNTRIES) from the shared GeoNames centroid file, with just the columns lookups
 * need (cc, postal, lat, lon). Deterministic: the same source gives the same bytes.
 *
 *   node packages/geo/scripts/extract-postal.ts [source.tsv.gz] [output.tsv.gz]
 *
 * The source defaults to `../shared/data/postal-centroids.tsv.gz` beside the repository.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { RADIUS_SEARCH_COUNTRIES } from '@pm/contracts';

const root = resolve(import.meta.dirname, '../../..');
const source = resolve(process.argv[2] ?? resolve(root, '../shared/data/postal-centroids.tsv.gz'));
const output = resolve(process.argv[3] ?? resolve(import.meta.dirname, '../assets/postal-centroids.tsv.gz'));

const packed = readFileSync(source);
const lines = gunzipSync(packed).toString('utf8').split('\n');
const header = lines[0]!.split('\t');
const col = (name: string) => {
  const i = header.indexOf(name);
  if (i < 0) throw new Error(`${source}: no "${name}" column`);
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
  if (!cells[postal] || !(Math.abs(la) <= 90) || !(Math.abs(lo) <= 180)) {
    throw new Error(`bad row: ${line}`);
  }
  // The source's own text for the numbers: rounded to 4 decimals, trailing zeros dropped.
  out.push(`${cells[cc]}\t${cells[postal]}\t${cells[lat]}\t${cells[lon]}`);
  perCountry.set(cells[cc]!, (perCountry.get(cells[cc]!) ?? 0) + 1);
}
const missing = RADIUS_SEARCH_COUNTRIES.filter((c) => !perCountry.has(c));
if (missing.length > 0) throw new Error(`no rows for ${missing.join(', ')}`);

// Node writes no timestamp into the gzip header, so the output depends only on its rows.
const gz = gzipSync(`${out.join('\n')}\n`, { level: 9 });
writeFileSync(output, gz);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
console.log(`source ${source} (sha256 ${sha(packed)})`);
console.log(`wrote ${output}: ${out.length - 1} rows, ${gz.length} bytes, sha256 ${sha(gz)}`);
console.log([...perCountry].map(([c, n]) => `${c} ${n}`).join(', '));
