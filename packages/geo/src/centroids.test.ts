import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { RADIUS_SEARCH_COUNTRIES } from '@pm/contracts';
import { BUNDLED_POSTAL_CENTROIDS_FILE, loadPostalCentroids, lookupPostal } from './centroids.ts';
import { haversineMiles } from './distance.ts';

const dir = mkdtempSync(join(tmpdir(), 'pm-geo-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the bundled file has rows for every Advanced Search country and nothing else', async () => {
  const centroids = await loadPostalCentroids();
  assert.equal(centroids.source, BUNDLED_POSTAL_CENTROIDS_FILE);
  assert.deepEqual(centroids.countries(), [...RADIUS_SEARCH_COUNTRIES].sort());
  for (const cc of RADIUS_SEARCH_COUNTRIES) assert.ok(centroids.rowCount(cc) > 100, cc);
  assert.equal(centroids.size, 562_321);
  assert.equal(await loadPostalCentroids(), centroids, 'loaded once');
});

test('real codes of each format family, as users type them', async () => {
  const expect: Array<[cc: string, typed: string, lat: number, lon: number]> = [
    ['US', '10001', 40.7484, -73.9967],
    ['US', '10001-2062', 40.7484, -73.9967],
    ['CA', 'K1A 0B1', 45.4207, -75.7023],
    ['IE', 'D01 F5P2', 53.354, -6.2545],
    ['LV', '1050', 56.946, 24.1059],
    ['SE', '11120', 59.3326, 18.0649],
    ['SE', '111 20', 59.3326, 18.0649],
    ['CZ', '11000', 50.0856, 14.4239],
    ['PL', '00-002', 52.2358, 21.0101],
    ['PL', '00002', 52.2358, 21.0101],
    ['PT', '1000-001', 38.7167, -9.1333],
    ['DE', '10115', 52.5323, 13.3846],
    ['FR', '75001', 48.8563, 2.3453],
    ['IN', '110001', 28.6374, 77.2182],
    ['MX', '06000', 19.4261, -99.1617],
  ];
  for (const [cc, typed, lat, lon] of expect) {
    assert.deepEqual(await lookupPostal(cc, typed), { lat, lon }, `${cc} ${typed}`);
  }
  assert.equal(await lookupPostal('US', '00000'), undefined);
  assert.equal(await lookupPostal('GB', 'SW1A 1AA'), undefined, 'GB is not an Advanced Search country');
  assert.equal(await lookupPostal('XX', '10001'), undefined);
});

test('codes the file keeps in another length: PT CP4, FR CEDEX, an unknown code of a known district', async () => {
  const lisbon = (await lookupPostal('PT', '1000'))!;
  assert.ok(haversineMiles(lisbon, { lat: 38.7167, lon: -9.1333 }) < 2, 'CP4 1000 is central Lisbon');
  assert.deepEqual(await lookupPostal('FR', '75008 CEDEX 08'), await lookupPostal('FR', '75008'));
  const prague = (await lookupPostal('CZ', '110 99'))!;
  assert.ok(haversineMiles(prague, { lat: 50.0856, lon: 14.4239 }) < 3, 'district 110 is Prague 1');
});

test('distances between postal centres', async () => {
  const ny = (await lookupPostal('US', '10001'))!;
  const la = (await lookupPostal('US', '90012'))!;
  assert.ok(Math.abs(haversineMiles(ny, la) - 2445) < 10);
  const berlin = (await lookupPostal('DE', '10115'))!;
  const munich = (await lookupPostal('DE', '80331'))!;
  assert.ok(Math.abs(haversineMiles(berlin, munich) - 314) < 5);
});

test('a fuller file by path or POSTAL_CENTROIDS_FILE: extra columns, any order, repeats averaged', async () => {
  const tsv = [
    'cc\tpostal\tlat\tlon\tplace\tregion',
    'GB\tSW1A\t51.5018\t-0.1328\tLondon\tEngland',
    'GB\tM1\t53.48\t-2.24\tManchester\tEngland',
    'NL\t1012\t52.37\t4.89\tAmsterdam\tNoord-Holland',
    'NL\t1012\t52.39\t4.91\tAmsterdam\tNoord-Holland',
    'XX\tbad\tnorth\t0\t\t',
    '',
  ].join('\n');
  const gz = join(dir, 'fuller.tsv.gz');
  writeFileSync(gz, gzipSync(tsv));
  const plain = join(dir, 'fuller.tsv');
  writeFileSync(plain, tsv.replaceAll('\n', '\r\n'));
  for (const file of [gz, plain]) {
    const centroids = await loadPostalCentroids(file);
    assert.deepEqual(centroids.countries(), ['GB', 'NL']);
    assert.equal(centroids.size, 3);
    assert.deepEqual(centroids.lookup('GB', 'sw1a 1aa'), { lat: 51.5018, lon: -0.1328 });
    assert.deepEqual(centroids.lookup('GB', 'M1 1AE'), { lat: 53.48, lon: -2.24 });
    const amsterdam = centroids.lookup('NL', '1012 AB')!;
    assert.ok(Math.abs(amsterdam.lat - 52.38) < 1e-9 && Math.abs(amsterdam.lon - 4.9) < 1e-9);
  }
  const saved = process.env.POSTAL_CENTROIDS_FILE;
  process.env.POSTAL_CENTROIDS_FILE = gz;
  try {
    assert.deepEqual(await lookupPostal('GB', 'SW1A 1AA'), { lat: 51.5018, lon: -0.1328 });
    assert.equal(await lookupPostal('US', '10001'), undefined);
  } finally {
    if (saved === undefined) delete process.env.POSTAL_CENTROIDS_FILE;
    else process.env.POSTAL_CENTROIDS_FILE = saved;
  }
});

test('a missing or headerless file fails clearly, and a later call tries again', async () => {
  const missing = join(dir, 'later.tsv');
  await assert.rejects(loadPostalCentroids(missing), /ENOENT/);
  writeFileSync(missing, 'cc\tpostal\tlat\tlon\nDE\t10115\t52.5323\t13.3846\n');
  assert.equal((await loadPostalCentroids(missing)).size, 1);
  const headerless = join(dir, 'headerless.tsv');
  writeFileSync(headerless, 'DE\t10115\t52.5323\t13.3846\n');
  await assert.rejects(loadPostalCentroids(headerless), /must name the columns cc, postal, lat and lon/);
});
