import { BYTES_PER_GB, isOverVolume, isPackageActive, portRefundAllowanceBytes } from '@pm/contracts';
import type { Cents } from '@pm/money';
import type { PackageRow } from './ports.repository.ts';

/** What the package rules read of a package. */
export type PackageRuleInput = Pick<
  PackageRow,
  'status' | 'trafficType' | 'trafficGb' | 'upload' | 'download' | 'dateStart' | 'dateFinish' | 'priceC'
>;

/** Bytes the package has carried in its current period (both directions, as the volume counts them). */
export const usedBytes = (p: Pick<PackageRow, 'upload' | 'download'>) => p.upload + p.download;

/**
 * The refund rule (rules §9), the one the refund decides by and the `refundable` flag shows: the
 * package serves now (`isPackageActive`), it carried at most 10 MB per Gb bought
 * (`portRefundAllowanceBytes`, the unlimited port counting as 1 Gb) and less than half of its
 * period has passed. The refund decides on counters its node has just flushed; the flag shows the
 * last flushed ones.
 */
export function isPortRefundable(p: PackageRuleInput, nowMs: number): boolean {
  if (!isPackageActive(p.status, p.dateFinish.getTime(), nowMs)) return false;
  const start = p.dateStart.getTime();
  const half = (p.dateFinish.getTime() - start) / 2;
  return usedBytes(p) <= portRefundAllowanceBytes(p.trafficGb) && nowMs - start < half;
}

/**
 * What a refund returns: the last charge less the traffic used, charged at the package's price per
 * Gb (price / max(1, Gb): the unlimited port counts as 1 Gb), rounded up to the cent, never below 0.
 * So a refund never gives back traffic: repeated buy-use-refund cycles pay for every byte counted.
 */
export function portRefundAmountC(p: PackageRuleInput): Cents {
  const gb = BigInt(Math.max(1, p.trafficGb));
  const denominator = gb * BigInt(BYTES_PER_GB);
  const used = BigInt(usedBytes(p)) * BigInt(p.priceC);
  const usedC = (used + denominator - 1n) / denominator;
  const back = BigInt(p.priceC) - usedC;
  return Number(back > 0n ? back : 0n) as Cents;
}

/**
 * Whether a package no longer serves and may be reactivated: suspended, or still marked active but
 * past its date or at its volume (the gateway or `ports.suspendDue` has not marked it yet).
 */
export function isPortReactivatable(p: PackageRuleInput, nowMs: number): boolean {
  if (p.status === 'suspend') return true;
  if (p.status !== 'active') return false;
  return (
    !isPackageActive(p.status, p.dateFinish.getTime(), nowMs) ||
    isOverVolume(p.trafficType, p.trafficGb, usedBytes(p))
  );
}
