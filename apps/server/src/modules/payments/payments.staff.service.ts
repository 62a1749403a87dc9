import {
  AppError,
  type THeldCredit,
  type THeldCreditsResponse,
  type TVanishedPaymentsResponse,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { DECIMALS, formatCoins } from './payments.amounts.ts';
import { toCryptoTransaction } from './payments.mapper.ts';
import type { HeldRow, PaymentsStaffRepository } from './payments.staff.repository.ts';

/** What the staff side of payments is built from. */
export interface PaymentsStaffServiceDeps {
  db: Db;
  repo: PaymentsStaffRepository;
  ledger: Pick<LedgerService, 'move'>;
  audit: Pick<AuditService, 'record'>;
  now: () => number;
}

/** The staff payments service's functions. */
export type PaymentsStaffService = ReturnType<typeof createPaymentsStaffService>;

function toHeldCredit(h: HeldRow): THeldCredit {
  return {
    id: h.id,
    uid: h.chargeId,
    userId: h.userId,
    type: h.currency,
    txid: h.txid,
    address: h.address,
    amount: formatCoins(h.valueBase, DECIMALS[h.currency]),
    amountUsd: h.amountC,
    reason: h.reason,
    state: h.state,
    time: h.createdAt.toISOString(),
    decidedAt: h.decidedAt?.toISOString() ?? null,
    decidedBy: h.decidedBy,
    note: h.note,
  };
}

/** Held credits (release or return) and vanished credits, for staff. */
export function createPaymentsStaffService(deps: PaymentsStaffServiceDeps) {
  const { repo } = deps;

  /** Decides a held credit once: CONFLICT when it was decided already, NOT_FOUND when unknown. */
  async function decide(actorId: string, id: number, state: 'released' | 'returned', note: string) {
    return deps.db.transaction(async (tx) => {
      const held = await repo.lockHeld(id, tx);
      if (!held) throw new AppError('NOT_FOUND', { userMessage: 'Held credit not found' });
      if (held.userId === actorId) {
        // As with balance edits: no staff member decides money of their own account.
        throw new AppError('FORBIDDEN', {
          message: `${actorId} tried to decide their own held credit ${id}`,
          userMessage: 'Another staff member must decide a held credit of your own account',
        });
      }
      if (held.state !== 'held') {
        throw new AppError('CONFLICT', {
          userMessage: `This credit was ${held.state} already`,
          details: { errorCode: 'heldCreditDecided' },
        });
      }
      const decidedAt = new Date(deps.now());
      if (state === 'released' && held.amountC > 0) {
        await deps.ledger.move(
          {
            userId: held.userId,
            amountC: held.amountC,
            type: 'deposit',
            memo: `Held ${formatCoins(held.valueBase, DECIMALS[held.currency])} ${held.currency.toUpperCase()} deposit released by staff, tx ${held.txid.slice(0, 12)}…`,
            idemKey: `held:${held.id}`,
          },
          tx,
        );
      }
      await repo.decideHeld(id, { state, decidedAt, decidedBy: actorId, note }, tx);
      await deps.audit.record(tx, {
        actorId,
        action: state === 'released' ? 'payment.release' : 'payment.return',
        targetId: held.chargeId,
        before: { heldCreditId: held.id, state: 'held', amountC: held.amountC, userId: held.userId },
        after: { heldCreditId: held.id, state },
        reason: note,
      });
      return toHeldCredit({ ...held, state, decidedAt, decidedBy: actorId, note });
    });
  }

  return {
    /** `GET /crypto/held`: held credits, newest first. */
    async listHeld(f: {
      state?: THeldCredit['state'] | undefined;
      userId?: string | undefined;
      offset: number;
      limit: number;
    }): Promise<THeldCreditsResponse> {
      const { rows, total } = await repo.listHeld(f);
      return { items: rows.map(toHeldCredit), total };
    },
    /** Credits a held amount to the customer's balance (ledger `deposit`, key `held:<id>`), with an audit row. */
    releaseHeld: (actorId: string, id: number, note: string) => decide(actorId, id, 'released', note),
    /** Marks a held amount returned (sent back outside the system; the balance is untouched), with an audit row. */
    returnHeld: (actorId: string, id: number, note: string) => decide(actorId, id, 'returned', note),
    /** `GET /crypto/vanished`: credited payments later gone from the chain; the credits stand until staff settle them. */
    async listVanished(): Promise<TVanishedPaymentsResponse> {
      const rows = await repo.listVanished();
      return {
        items: rows.map((r) => ({
          ...toCryptoTransaction(r.p, r.c),
          userId: r.c.userId,
          vanishedAt: (r.p.vanishedAt as Date).toISOString(),
        })),
      };
    },
  };
}
