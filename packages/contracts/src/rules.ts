/**
 * The rules that decide money or traffic, in TypeScript. Each has a SQL twin of the same name
 * created by migration 0019 (`packages/db/drizzle/0019_sale_kernel.sql`), which the server's
 * queries and the gateway's loads call with the clock as an argument; `packages/db/src/rules.int.test.ts`
 * feeds the same random rows to both and compares. Change one, change the other.
 */

/** Bytes in one Gb of a package's volume (SQL `bytes_per_gb()`): binary, as the gateway counts. */
export const BYTES_PER_GB = 1024 ** 3;

/** Refund rule of a port package: this much traffic per Gb bought (SQL `port_refund_allowance`). */
export const PORT_REFUND_MAX_BYTES = 10 * 1024 * 1024;

/** A lease is active while not ended and its `until` is after `atMs` (SQL `lease_active`). */
export function isLeaseActive(endedAtMs: number | null, untilMs: number, atMs: number): boolean {
  return endedAtMs === null && untilMs > atMs;
}

/** A package relays while `active` and before its `date_finish` (SQL `package_active`). */
export function isPackageActive(status: string, dateFinishMs: number, atMs: number): boolean {
  return status === 'active' && dateFinishMs > atMs;
}

/** A package's volume in bytes; null for the unlimited port (SQL `package_volume_bytes`). */
export function packageVolumeBytes(trafficType: string, trafficGb: number): number | null {
  return trafficType === 'limit' ? trafficGb * BYTES_PER_GB : null;
}

/** Whether `usedBytes` reached the package's volume (SQL `package_over_volume`). */
export function isOverVolume(trafficType: string, trafficGb: number, usedBytes: number): boolean {
  const volume = packageVolumeBytes(trafficType, trafficGb);
  return volume !== null && usedBytes >= volume;
}

/**
 * Traffic a package may have used and still be refunded: 10 MB per Gb bought, at least 10 MB
 * (the unlimited port counts as 1 Gb) (SQL `port_refund_allowance`).
 */
export function portRefundAllowanceBytes(trafficGb: number): number {
  return PORT_REFUND_MAX_BYTES * Math.max(1, Math.ceil(trafficGb));
}

/**
 * A place name as targeting compares it: without spaces, ASCII letters folded to lower case
 * (SQL `place_key`). Only ASCII is folded so that both sides agree whatever the database's locale.
 */
export function placeKey(name: string): string {
  return name.replaceAll(' ', '').replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** An exit agent's place and connection, as the package rules read it. */
export interface ExitPlace {
  cc: string;
  reg: string;
  city: string;
  conn: string;
}

/** A package's (or a targeted login's) place: '' is any country, state or city. */
export interface PackagePlace {
  country: string;
  state: string;
  city: string;
  connectionType: string;
}

/**
 * Whether an agent may be an exit of a package's place (SQL `exit_matches`): its country, state
 * and city (compared by `placeKey`) and its connection (`wifi`, `mobile` = cell, `both`).
 */
export function exitMatches(a: ExitPlace, g: PackagePlace): boolean {
  if (g.country !== '' && a.cc !== g.country) return false;
  if (g.state !== '' && placeKey(a.reg) !== placeKey(g.state)) return false;
  if (g.city !== '' && placeKey(a.city) !== placeKey(g.city)) return false;
  if (g.connectionType === 'wifi') return a.conn === 'wifi';
  if (g.connectionType === 'mobile') return a.conn === 'cell';
  return true;
}
