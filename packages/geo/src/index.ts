/**
 * Geodata for the shop's radius search (rules §5, Advanced Search): postal-code centroids of the 35
 * Advanced Search countries (GeoNames, CC BY 4.0, committed under `assets/`), the normalisation of
 * what users type, and great-circle distances. Nothing is read until `loadPostalCentroids` is called.
 *
 * A radius query: `const c = await lookupPostal(cc, zip)`, then rows inside `boundingBox(c, miles)`
 * (an index-friendly SQL prefilter), then `haversineMiles(c, row) <= miles` for the exact answer.
 */
export {
  BUNDLED_POSTAL_CENTROIDS_FILE,
  loadPostalCentroids,
  lookupPostal,
  type PostalCentroids,
} from './centroids.ts';
export { type BoundingBox, boundingBox, EARTH_RADIUS_MI, haversineMiles, type LatLon } from './distance.ts';
export { normalizePostal } from './normalize.ts';
