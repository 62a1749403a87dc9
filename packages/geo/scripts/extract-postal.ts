/**
 * Makes `packages/geo/assets/postal-centroids.tsv.gz` from a fuller GeoNames centroid file (see
 * `extractPostal` and docs/rules.md §9 "Postal centroids" for its format and where it comes from).
 *
 *   node packages/geo/scripts/extract-postal.ts SOURCE.tsv.gz [OUTPUT.tsv.gz]
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { extractPostal } from '../src/extract.ts';

if (!process.argv[2]) {
  console.error(
    'usage: extract-postal.ts SOURCE.tsv.gz [OUTPUT.tsv.gz]\n' +
      'SOURCE is a gzipped TSV of GeoNames postal centroids (columns cc, postal, lat, lon, ...; one row per\n' +
      'country and code), built from the GeoNames postal dump (https://download.geonames.org/export/zip/).',
  );
  process.exit(2);
}
const source = resolve(process.argv[2]);
const output = resolve(process.argv[3] ?? resolve(import.meta.dirname, '../assets/postal-centroids.tsv.gz'));

const packed = readFileSync(source);
const { gz, rows, perCountry } = extractPostal(packed);
writeFileSync(output, gz);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
console.log(`source ${source} (sha256 ${sha(packed)})`);
console.log(`wrote ${output}: ${rows} rows, ${gz.length} bytes, sha256 ${sha(gz)}`);
console.log([...perCountry].map(([c, n]) => `${c} ${n}`).join(', '));
