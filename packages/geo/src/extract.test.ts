import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BUNDLED_POSTAL_CENTROIDS_FILE } from './centroids.ts';
import { extractPostal, selectPostalRows } from './extract.ts';

const bundled = gunzipSync(readFileSync(BUNDLED_POSTAL_CENTROIDS_FILE)).toString('utf8');
const bundledRows = bundled.trimEnd().split('\n').slice(1);

/**
 * A fuller source in the GeoNames centroid format, made from what the repository holds: the bundled
 * rows with place and region columns (in another column order), plus countries the search leaves out.
 */
function fullerSource(rows: readonly string[]): string {
  const lines = ['region\tcc\tpostal\tplace\tlat\tlon'];
  for (const row of rows) {
    const [cc, postal, lat, lon] = row.split('\t');
    lines.push(`Some region\t${cc}\t${postal}\tSome place\t${lat}\t${lon}`);
    if (cc === 'GB' || cc === 'NL') throw new Error('the bundled file has no GB or NL');
  }
  lines.splice(1, 0, 'England\tGB\tSW1A\tLondon\t51.5018\t-0.1328');
  lines.push('Noord-Holland\tNL\t1012\tAmsterdam\t52.37\t4.89');
  return `${lines.join('\n')}\n`;
}

// The gzip of the whole file is left out here (seconds of CPU); the small test below shows the
// packing is deterministic, and `extract-postal.ts` prints the sha256 to compare.
test('the bundled centroid rows are exactly what extract-postal keeps from a fuller source', () => {
  const made = selectPostalRows(fullerSource(bundledRows));
  assert.equal(made.rows, 562_321);
  assert.equal(made.perCountry.size, 35);
  assert.ok(made.tsv === bundled, 'same text as packages/geo/assets/postal-centroids.tsv.gz unpacked');
});

test('a small source packs to the same bytes every time; the other countries are dropped', () => {
  const oneEach = [...new Map(bundledRows.map((r) => [r.split('\t')[0], r])).values()];
  const packed = gzipSync(fullerSource(oneEach));
  const made = extractPostal(packed);
  assert.equal(made.rows, 35);
  assert.ok(made.gz.equals(extractPostal(packed).gz));
  assert.equal(gunzipSync(made.gz).toString('utf8'), `cc\tpostal\tlat\tlon\n${oneEach.join('\n')}\n`);
});

test('a source without an Advanced Search country, a column or a sane row is refused', () => {
  const oneEach = [...new Map(bundledRows.map((r) => [r.split('\t')[0], r])).values()];
  assert.throws(
    () => selectPostalRows(fullerSource(oneEach.filter((r) => !r.startsWith('US\t')))),
    /no rows for US/,
  );
  assert.throws(() => selectPostalRows('cc\tpostal\tlat\nUS\t10001\t40.7\n'), /no "lon" column/);
  assert.throws(() => selectPostalRows(fullerSource([...oneEach, 'DE\t10115\t95\t13.38'])), /bad row/);
});
