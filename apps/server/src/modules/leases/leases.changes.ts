import type { LeaseChange, TProbeObservation } from '@pm/contracts';

/** The agent properties a shop row shows that a probe can observe. */
export interface ShownExit {
  ip: string;
  host: string;
  cc: string;
  reg: string;
  city: string;
  zip: string;
  isp: string;
}

/**
 * Which of the shop's properties (LEASE_CHANGES) differ between what the agent row showed and what
 * a probe saw of the exit. What the probe could not tell (host or location unknown) is not a change.
 * Blacklists and scores are not observed by probes, so they never appear here.
 */
export function findExitChanges(shown: ShownExit, seen: TProbeObservation): LeaseChange[] {
  const changes: LeaseChange[] = [];
  if (seen.ip !== shown.ip) changes.push('ip');
  const loc = seen.loc;
  if (
    loc &&
    (loc.cc !== shown.cc ||
      loc.reg !== shown.reg ||
      loc.city !== shown.city ||
      loc.zip !== shown.zip ||
      loc.isp !== shown.isp)
  ) {
    changes.push('geo');
  }
  if (seen.host !== null && seen.host !== shown.host) changes.push('host');
  return changes;
}
