/** Charge status rules and the wire shapes of charges and payments. */
import type { ChargeStatus, CurrencyId, TChargePage, TCryptoTransaction } from '@pm/contracts';
import type { Cents } from '@pm/money';
import { DECIMALS, formatCoins } from './payments.amounts.ts';
import type { ChargeRow, PaymentRow } from './payments.repository.ts';

/**
 * A charge's status from what arrived: `paid` once the confirmed value reaches what was asked,
 * `partial` below it, `pending` while a payment waits for confirmations, else `new` until expiry
 * and `expired` after. Status follows the money, so it never goes back from partial or paid.
 */
export function chargeStatus(c: {
  dueBase: bigint;
  receivedBase: bigint;
  hasPending: boolean;
  expiresAt: Date;
  now: Date;
}): ChargeStatus {
  if (c.receivedBase >= c.dueBase) return 'paid';
  if (c.receivedBase > 0n) return 'partial';
  if (c.hasPending) return 'pending';
  return c.now >= c.expiresAt ? 'expired' : 'new';
}

const URI_SCHEME: Record<CurrencyId, string | undefined> = {
  btc: 'bitcoin',
  ltc: 'litecoin',
  trc20usdt: undefined,
};

/** What a wallet's QR scanner understands: BIP21 for Bitcoin and Litecoin, the bare address on TRON. */
export function paymentUri(currency: CurrencyId, address: string, amount: string): string {
  const scheme = URI_SCHEME[currency];
  return scheme ? `${scheme}:${address}?amount=${amount}` : address;
}

/** When a payment was made: first seen, or its block time when earlier (a watcher outage does not make it late). */
export function paidAt(p: Pick<PaymentRow, 'firstSeenAt' | 'blockTime'>): Date {
  return p.blockTime && p.blockTime < p.firstSeenAt ? p.blockTime : p.firstSeenAt;
}

/** A stored payment as staff see it. */
export function toCryptoTransaction(p: PaymentRow, c: ChargeRow): TCryptoTransaction {
  return {
    time_created: paidAt(p).toISOString(),
    time_confirmed: p.creditedAt?.toISOString() ?? null,
    type: c.currency,
    txid: p.txid,
    uid: c.id,
    address: c.address,
    amount: formatCoins(p.valueBase, DECIMALS[c.currency]),
    amountUsd: p.creditedC ?? null,
    state: p.state,
    late: p.late,
  };
}

/** The charge page's data; `now` turns an unpolled `new` charge past expiry into `expired` without writing. */
export function toChargePage(
  c: ChargeRow,
  payments: PaymentRow[],
  now: Date,
  confirmationsRequired: number,
): TChargePage {
  const dec = DECIMALS[c.currency];
  const pending = payments.filter((p) => p.state === 'pending');
  const pendingBase = pending.reduce((s, p) => s + p.valueBase, 0n);
  const amountCrypto = formatCoins(c.dueBase, dec);
  const status =
    c.status === 'new' || c.status === 'pending'
      ? chargeStatus({
          dueBase: c.dueBase,
          receivedBase: c.receivedBase,
          hasPending: pending.length > 0,
          expiresAt: c.status === 'pending' ? c.watchUntil : c.expiresAt,
          now,
        })
      : c.status;
  return {
    uid: c.id,
    code: c.code,
    status,
    currency: c.currency,
    address: c.address,
    amountCrypto,
    amountUsd: c.amountUsdC,
    exchangeRate: c.rateC,
    bonusType: c.bonusPct,
    date: c.createdAt.toISOString(),
    expiresAt: c.expiresAt.toISOString(),
    paymentUri: paymentUri(c.currency, c.address, amountCrypto),
    receivedCrypto: formatCoins(c.receivedBase, dec),
    pendingCrypto: formatCoins(pendingBase, dec),
    creditedUsd: c.creditedC,
    bonusUsd: c.bonusC,
    late: c.late,
    over: c.receivedBase > c.dueBase,
    confirmationsRequired,
    payments: payments
      .filter((p) => p.state !== 'dropped')
      .map((p) => ({
        txid: p.txid,
        amountCrypto: formatCoins(p.valueBase, dec),
        confirmed: p.state === 'credited',
        creditedUsd: (p.creditedC ?? null) as Cents | null,
        late: p.late,
        time: paidAt(p).toISOString(),
      })),
  };
}
