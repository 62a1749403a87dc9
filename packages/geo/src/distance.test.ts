import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { boundingBox, EARTH_RADIUS_MI, haversineMiles, type LatLon } from './distance.ts';

const NEW_YORK = { lat: 40.7128, lon: -74.006 };
const LOS_ANGELES = { lat: 34.0522, lon: -118.2437 };
const LONDON = { lat: 51.5074, lon: -0.1278 };
const PARIS = { lat: 48.8566, lon: 2.3522 };
const SYDNEY = { lat: -33.8688, lon: 151.2093 };
const MELBOURNE = { lat: -37.8136, lon: 144.9631 };

const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not ${expected} ± ${tolerance}`);

test('haversine: known city pairs in miles', () => {
  near(haversineMiles(NEW_YORK, LOS_ANGELES), 2445, 3, 'New York - Los Angeles');
  near(haversineMiles(LONDON, PARIS), 213, 2, 'London - Paris');
  near(haversineMiles(SYDNEY, MELBOURNE), 443, 2, 'Sydney - Melbourne');
  assert.equal(haversineMiles(PARIS, PARIS), 0);
  assert.equal(haversineMiles(LONDON, PARIS), haversineMiles(PARIS, LONDON));
  // Half the circumference, without NaN from rounding past 1.
  near(
    haversineMiles({ lat: 0, lon: 0 }, { lat: 0, lon: 180 }),
    Math.PI * EARTH_RADIUS_MI,
    1e-6,
    'antipodes',
  );
});

test('bounding box: one degree of latitude is about 69 miles; longitude widens with latitude', () => {
  const box = boundingBox({ lat: 0, lon: 0 }, 69.09);
  near(box.maxLat, 1, 0.001, 'maxLat');
  near(box.minLon, -1, 0.001, 'minLon');
  const north = boundingBox({ lat: 60, lon: 10 }, 69.09);
  near(north.maxLat - 60, 1, 0.001, 'latitude span at 60°');
  near(north.maxLon - 10, 2, 0.01, 'longitude span at 60°');
  assert.deepEqual(boundingBox(NEW_YORK, 0), {
    minLat: 40.7128,
    maxLat: 40.7128,
    minLon: -74.006,
    maxLon: -74.006,
  });
});

test('bounding box: a pole or the antimeridian in reach opens every longitude', () => {
  assert.deepEqual(boundingBox({ lat: 89.5, lon: 20 }, 100), {
    minLat: 89.5 - 100 / EARTH_RADIUS_MI / (Math.PI / 180),
    maxLat: 90,
    minLon: -180,
    maxLon: 180,
  });
  const fiji = boundingBox({ lat: -17.7, lon: 179.9 }, 50);
  assert.equal(fiji.minLon, -180);
  assert.equal(fiji.maxLon, 180);
});

test('bounding box: every point within the radius is inside the box', () => {
  const point = fc.record({
    lat: fc.double({ min: -89, max: 89, noNaN: true }),
    lon: fc.double({ min: -180, max: 180, noNaN: true }),
  });
  fc.assert(
    fc.property(
      point,
      fc.double({ min: 0, max: 360, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 1, max: 100, noNaN: true }),
      (center: LatLon, bearingDeg, fraction, miles) => {
        // The point `fraction * miles` from the centre on the given bearing (spherical destination).
        const d = (fraction * miles) / EARTH_RADIUS_MI;
        const [φ1, λ1, θ] = [
          (center.lat * Math.PI) / 180,
          (center.lon * Math.PI) / 180,
          (bearingDeg * Math.PI) / 180,
        ];
        const φ2 = Math.asin(Math.sin(φ1) * Math.cos(d) + Math.cos(φ1) * Math.sin(d) * Math.cos(θ));
        const λ2 =
          λ1 +
          Math.atan2(Math.sin(θ) * Math.sin(d) * Math.cos(φ1), Math.cos(d) - Math.sin(φ1) * Math.sin(φ2));
        const p = { lat: (φ2 * 180) / Math.PI, lon: (((λ2 * 180) / Math.PI + 540) % 360) - 180 };
        const box = boundingBox(center, miles);
        const eps = 1e-9;
        assert.ok(haversineMiles(center, p) <= miles + 1e-6);
        assert.ok(p.lat >= box.minLat - eps && p.lat <= box.maxLat + eps, 'latitude');
        assert.ok(p.lon >= box.minLon - eps && p.lon <= box.maxLon + eps, 'longitude');
      },
    ),
    { numRuns: 2000 },
  );
});
