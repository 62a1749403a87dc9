/**
 * A proxy the customer already holds (issue 36, item 6): Buy Again, or a purchase the server refuses
 * with "You already hold a lease on this proxy.", opens that lease in My Proxies instead of the
 * shop's "This proxy is currently purchased and unavailable." Pure, so Node tests it.
 */
import type { TLease } from '@pm/contracts';

/** The server's words for it (agents.sale.ts), kept as they are. */
export const ALREADY_HELD_TEXT = 'You already hold a lease on this proxy.';

/** What My Proxies says above the lease it opened for that reason. */
export const ALREADY_HELD_NOTICE = `${ALREADY_HELD_TEXT} It was not bought again: here it is.`;

/** Router state of a visit to My Proxies that opens a lease the customer tried to buy again. */
export interface HeldLeaseState {
  alreadyHeld: true;
}

/** The caller's active lease on this agent, if any (a lease list holds only the caller's own). */
export const findHeldLease = (leases: readonly TLease[], agentId: string): TLease | undefined =>
  leases.find((l) => l.agentId === agentId);

/** Where a lease opens: its own page on phones, selected in the list beside its details on desktop. */
export const heldLeasePath = (leaseId: string, isMobile: boolean): string =>
  isMobile ? `/my/${encodeURIComponent(leaseId)}` : `/my?lease=${encodeURIComponent(leaseId)}`;

/** Whether a visit came from such an attempt (router state is whatever the history entry holds). */
export const isHeldLeaseState = (state: unknown): state is HeldLeaseState =>
  typeof state === 'object' && state !== null && (state as { alreadyHeld?: unknown }).alreadyHeld === true;
