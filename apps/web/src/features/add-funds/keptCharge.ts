/**
 * What Add Funds shows of the charge it created or kept (issue 36): the kept copy in local storage
 * is only a pointer; the server's page of the charge decides. Only an unpaid, unexpired charge is
 * shown as open ("send the amount below"); a paid one says so with what was credited and offers a
 * new top-up, so nobody is invited to pay twice. Pure, so Node tests it.
 */
import type { TChargePage } from '@pm/contracts';
import type { Cents } from '@pm/money';

/** How the charge got here: just created (its tab opened, or the browser blocked it), or kept from before. */
export type ChargeNotice = 'opened' | 'blocked' | 'kept';

export type ChargeView =
  /** The server has not answered yet about a charge kept from before: nothing is claimed about it. */
  | { kind: 'checking' }
  /** No payment yet and not expired: the address and amount to send. */
  | { kind: 'open'; notice: ChargeNotice }
  /** A payment arrived and waits for confirmations: nothing more to send. */
  | { kind: 'arriving' }
  /** Less than asked arrived; `creditedC` (bonus included) is on the balance. */
  | { kind: 'partial'; creditedC: Cents }
  /** Paid: `creditedC` (bonus included) is on the balance. */
  | { kind: 'paid'; creditedC: Cents }
  /** Expired, or no such charge (any more): the form again. */
  | { kind: 'closed' };

const creditedOf = (page: TChargePage): Cents => (page.creditedUsd + page.bonusUsd) as Cents;

/**
 * The view of a charge from the server's page of it: `page` undefined while asking, null when the
 * server knows no such charge of the caller's. A charge just created is open until the server says
 * otherwise; one kept from before is open only once the server says it is `new` and unexpired.
 */
export function chargeView(
  notice: ChargeNotice,
  page: TChargePage | null | undefined,
  nowMs: number,
): ChargeView {
  if (page === undefined) return notice === 'kept' ? { kind: 'checking' } : { kind: 'open', notice };
  if (page === null) return { kind: 'closed' };
  switch (page.status) {
    case 'new':
      return Date.parse(page.expiresAt) > nowMs ? { kind: 'open', notice } : { kind: 'closed' };
    case 'pending':
      return { kind: 'arriving' };
    case 'partial':
      return { kind: 'partial', creditedC: creditedOf(page) };
    case 'paid':
      return { kind: 'paid', creditedC: creditedOf(page) };
    case 'expired':
      return { kind: 'closed' };
  }
}

/** Whether the kept copy can go: the charge needs nothing more from the customer. */
export const isChargeSettled = (view: ChargeView): boolean => view.kind === 'paid' || view.kind === 'closed';
