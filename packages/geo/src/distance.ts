/** A point on the Earth in WGS84 degrees. */
export interface LatLon {
  lat: number;
  lon: number;
}

/** Latitude and longitude bounds in degrees, inclusive: a cheap SQL prefilter (`lat BETWEEN …`). */
export interface BoundingBox {
  minLat: number;
  maxLat: number;
  minLon: number;
  maxLon: number;
}

/** Mean Earth radius in miles (IUGG mean radius, 6371.0088 km). */
export const EARTH_RADIUS_MI = 3958.8;

const RAD = Math.PI / 180;

/** Great-circle distance between two points in miles (haversine on a sphere of EARTH_RADIUS_MI). */
export function haversineMiles(a: LatLon, b: LatLon): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  // Rounding can push h a hair past 1 for antipodal points.
  return 2 * EARTH_RADIUS_MI * Math.asin(Math.sqrt(Math.min(1, h)));
}

/**
 * The smallest latitude/longitude box holding every point within `miles` of `center`, to narrow
 * rows in SQL before the exact distance. Where the circle reaches a pole or crosses the
 * antimeridian the box spans every longitude (-180 to 180): wider than needed, never too narrow.
 */
export function boundingBox(center: LatLon, miles: number): BoundingBox {
  const r = Math.max(0, miles) / EARTH_RADIUS_MI; // angular radius, radians
  const dLat = r / RAD;
  const minLat = center.lat - dLat;
  const maxLat = center.lat + dLat;
  if (minLat <= -90 || maxLat >= 90 || r >= Math.PI / 2) {
    return { minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat), minLon: -180, maxLon: 180 };
  }
  // The circle's widest longitude is at the tangent meridians, not at the centre's latitude.
  const dLon = Math.asin(Math.min(1, Math.sin(r) / Math.cos(center.lat * RAD))) / RAD;
  const minLon = center.lon - dLon;
  const maxLon = center.lon + dLon;
  if (minLon < -180 || maxLon > 180) return { minLat, maxLat, minLon: -180, maxLon: 180 };
  return { minLat, maxLat, minLon, maxLon };
}
