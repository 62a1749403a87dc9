/**
 * Crediting one confirmed, verified output of a charge, exactly once, and settling the charge's
 * aggregates: the watcher's write side. An output's row turns 'credited' only through
 * `UPDATE … WHERE state <> 'credited'`, in the same transaction as its ledger records (keyed by
 * the output), any held credit and the charge's new status.
 */
import type { CurrencyId } from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import { cents } from '@pm/money';
import type { Logger } from '../../platform/logger.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ReferralService } from '../referral/referral.service.ts';
import { DECIMALS, formatCoins, percentOf } from './payments.amounts.ts';
import type { ChainClient, ObservedOutput } from './payments.chains.ts';
import type { PaymentsSettings } from './payments.config.ts';
import { chargeStatus, paidAt } from './payments.mapper.ts';
import { chargeCapC, isLate, priceOutput } from './payments.pricing.ts';
import type { RateSource } from './payments.rates.ts';
import type { ChargeRow, PaymentRow, PaymentsRepository } from './payments.repository.ts';

/** A confirmed, verified output waiting to be credited, and how deep it was. */
export interface Candidate {
  charge: ChargeRow;
  verified: ObservedOutput;
  depth: number;
}

/** One output as credited, for a caller's hook inside the credit's transaction. */
export interface CreditedOutput {
  charge: ChargeRow;
  /** The payment row as it was before this credit. */
  payment: PaymentRow;
  creditC: number;
  bonusC: number;
  heldC: number;
  /** The customer's balance after the credit (undefined when nothing reached the balance). */
  balanceC: number | undefined;
}

/** Runs in the credit's transaction (staff deep-check: its audit row); a throw undoes the credit. */
export type OnCredited = (tx: Tx, credited: CreditedOutput) => Promise<void>;

/** What crediting is built from. */
export interface CreditingDeps {
  db: Db;
  repo: PaymentsRepository;
  clients: Partial<Record<CurrencyId, ChainClient>>;
  rates: Pick<RateSource, 'quote'>;
  ledger: Pick<LedgerService, 'move'>;
  referral: Pick<ReferralService, 'rewardLoad'>;
  settings: PaymentsSettings;
  now: () => number;
  log: Logger;
}

const LABEL: Record<CurrencyId, string> = { btc: 'BTC', ltc: 'LTC', trc20usdt: 'USDT TRC20' };
/** USDT payments under this many cents pay the small-payment fee (rules §5: under $10). */
const USDT_FEE_BELOW_C = 1000;
/** A credited output not yet final is re-read this often. */
export const RECHECK_MS = 10 * 60_000;

/** Builds the crediting functions. */
export function createCrediting(deps: CreditingDeps) {
  const { repo, settings } = deps;
  const clock = () => new Date(deps.now());
  const capOf = (c: ChargeRow) => c.capC ?? chargeCapC(c.amountUsdC, settings.capMultiple);

  /** Recomputes a charge's aggregates and status from its payments, under its row lock. */
  async function settleCharge(chargeId: string, tx: Tx) {
    const charge = await repo.lockCharge(chargeId, tx);
    if (!charge) return;
    const payments = await repo.findPayments([chargeId], tx);
    const credited = payments.filter((p) => p.state === 'credited');
    const hasPending = payments.some((p) => p.state === 'pending');
    const receivedBase = credited.reduce((s, p) => s + p.valueBase, 0n);
    const status = chargeStatus({
      dueBase: charge.dueBase,
      receivedBase,
      hasPending,
      expiresAt: hasPending ? charge.watchUntil : charge.expiresAt,
      now: clock(),
    });
    await repo.updateCharge(
      chargeId,
      {
        status,
        receivedBase,
        creditedC: cents(credited.reduce((s, p) => s + (p.creditedC ?? 0), 0)),
        bonusC: cents(credited.reduce((s, p) => s + (p.bonusC ?? 0), 0)),
        late: credited.some((p) => p.late),
      },
      tx,
    );
  }

  /**
   * Credits one verified output of a charge, once: the part within the amount due at the locked
   * rate (late: the lower of locked and current), the part above it at the lower rate, at most
   * the charge's cap; anything past the cap becomes a held credit. Skipped this time when a
   * current rate is needed and none is to be had. Returns the credited row, or undefined.
   */
  async function creditOutput(
    { charge, verified, depth }: Candidate,
    onCredited?: OnCredited,
  ): Promise<PaymentRow | undefined> {
    const existing = await repo.findPayment(charge.currency, verified.txid, verified.outKey);
    if (!existing || existing.state === 'credited' || existing.chargeId !== charge.id) return undefined;
    const blockTime = verified.blockTime === undefined ? existing.blockTime : new Date(verified.blockTime);
    const late = isLate({
      paidAt: paidAt({ firstSeenAt: existing.firstSeenAt, blockTime }),
      confirmedAt: blockTime ?? clock(),
      expiresAt: charge.expiresAt,
      allowanceMs: settings.lateAllowanceMs,
    });
    let currentRateC: ReturnType<typeof cents> | undefined;
    // Asked before the transaction (a cached quote mostly): whether the payment is over the amount
    // due is known only under the charge's lock. One that needs it and cannot have it waits.
    try {
      currentRateC = (await deps.rates.quote(charge.currency)).rateC;
    } catch (e) {
      deps.log.warn({ err: e, txid: verified.txid }, 'no fresh rate: a late or over payment waits');
    }
    const dec = DECIMALS[charge.currency];
    const client = deps.clients[charge.currency];
    const key = `${charge.currency}:${existing.txid}:${existing.outKey}`;
    const amount = `${formatCoins(existing.valueBase, dec)} ${LABEL[charge.currency]}`;
    return deps.db.transaction(async (tx) => {
      const locked = await repo.lockCharge(charge.id, tx);
      if (!locked) return undefined;
      const before = (await repo.findPayments([charge.id], tx)).filter((p) => p.state === 'credited');
      const priced = priceOutput({
        valueBase: existing.valueBase,
        decimals: dec,
        dueBase: locked.dueBase,
        receivedBefore: before.reduce((s, p) => s + p.valueBase, 0n),
        creditedBefore: cents(before.reduce((s, p) => s + (p.creditedC ?? 0), 0)),
        lockedRateC: locked.rateC,
        currentRateC,
        late,
        capC: capOf(locked),
        smallPaymentFee:
          charge.currency === 'trc20usdt'
            ? { belowC: USDT_FEE_BELOW_C, feeC: settings.usdtSmallPaymentFeeC }
            : undefined,
      });
      if (priced === 'needsRate') return undefined; // waits for a fresh rate (logged above)
      const now = clock();
      const final = depth >= (client?.finalDepth ?? 1);
      const { creditC, heldC } = priced;
      const bonusC = percentOf(creditC, charge.bonusPct);
      const won = await repo.markCredited(
        existing.id,
        {
          creditedAt: now,
          rateC: priced.rateC,
          creditedC: creditC,
          bonusC,
          late,
          blockHeight: verified.blockHeight ?? existing.blockHeight,
          blockHash: verified.blockHash ?? existing.blockHash,
          blockTime,
          finalAt: final ? now : null,
          recheckAt: final ? null : new Date(now.getTime() + RECHECK_MS),
        },
        tx,
      );
      if (!won) return undefined;
      if (heldC > 0 || priced.heldReason) {
        await repo.insertHeld(
          {
            paymentId: existing.id,
            chargeId: charge.id,
            userId: charge.userId,
            currency: charge.currency,
            valueBase: priced.heldBase,
            amountC: heldC,
            rateC: priced.overRateC,
            reason: priced.heldReason ?? 'overCap',
            createdAt: now,
          },
          tx,
        );
        deps.log.warn(
          { chargeId: charge.id, txid: existing.txid, heldC },
          'payment past the charge cap held for staff',
        );
      }
      let balanceC: number | undefined;
      if (creditC > 0) {
        const fee = priced.feeC > 0 ? `, $${priced.feeC / 100} fee` : '';
        const memo = `${amount} deposit${late ? ' (late)' : ''}${fee}, tx ${existing.txid.slice(0, 12)}…`;
        const moved = await deps.ledger.move(
          { userId: charge.userId, amountC: creditC, type: 'deposit', memo, idemKey: `deposit:${key}` },
          tx,
        );
        balanceC = moved.balanceC;
        if (bonusC > 0) {
          const bonus = await deps.ledger.move(
            {
              userId: charge.userId,
              amountC: bonusC,
              type: 'bonus',
              memo: `${charge.bonusPct}% bonus on a ${amount} deposit`,
              idemKey: `bonus:${key}`,
            },
            tx,
          );
          balanceC = bonus.balanceC;
        }
        await deps.referral.rewardLoad({ userId: charge.userId, loadC: creditC, loadKey: key }, tx);
      }
      await settleCharge(charge.id, tx);
      await onCredited?.(tx, { charge, payment: existing, creditC, bonusC, heldC, balanceC });
      return {
        ...existing,
        state: 'credited' as const,
        creditedC: creditC,
        bonusC,
        late,
        rateC: priced.rateC,
      };
    });
  }

  /** Credits candidates earliest paid on chain first (then by block height and txid). */
  async function creditInOrder(candidates: Candidate[], onCredited?: OnCredited): Promise<PaymentRow[]> {
    const when = (c: Candidate) => c.verified.blockTime ?? Number.MAX_SAFE_INTEGER;
    candidates.sort(
      (a, b) =>
        when(a) - when(b) ||
        (a.verified.blockHeight ?? 0) - (b.verified.blockHeight ?? 0) ||
        a.verified.txid.localeCompare(b.verified.txid),
    );
    const credited: PaymentRow[] = [];
    for (const c of candidates) {
      const row = await creditOutput(c, onCredited);
      if (row) credited.push(row);
    }
    return credited;
  }

  return { settleCharge, creditInOrder };
}

/** The crediting functions. */
export type Crediting = ReturnType<typeof createCrediting>;
