/**
 * A stand-in for the market API's payment routes (rules §7 "Payment calls", `GET /txrecords`) inside
 * Playwright routes: charges created at fixed rates, the charge page and its check, and ledger
 * records filtered by date and paged like the server. Tests pay a charge with `payCharge`.
 */
import {
  PERMISSION_DEPOSIT,
  type TAccount,
  type TChargePage,
  type TCryptoCreateResponse,
  type TTxRecord,
  ZCryptoCheckRequest,
  ZCryptoCreateRequest,
} from '@pm/contracts';
import { cents } from '@pm/money';
import type { MockAnswer } from './marketMock.ts';

export interface PaymentsMock {
  charges: TChargePage[];
  /** Ledger records, any order; answered newest first. */
  txRecords: TTxRecord[];
  /** Answers the next `POST /crypto/create` calls get instead of a charge, first one first. */
  createAnswers: MockAnswer[];
  /** What `GET /referral` says besides the link: sign-ups with the code and rewards earned. */
  referral: { invitedCount: number; rewardsC: number };
}

/** Cents per whole coin the mock prices charges at. */
export const MOCK_RATES_C = { btc: 6_543_210, ltc: 8_000, trc20usdt: 100 } as const;
const ADDRESSES = {
  btc: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  ltc: 'ltc1qg82tp5ml9d0lk2w6ux5pjmwyamf7c0fu6mfyqz',
  trc20usdt: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
} as const;
const DECIMALS = { btc: 8, ltc: 8, trc20usdt: 6 } as const;

export function createPaymentsMock(): PaymentsMock {
  return { charges: [], txRecords: [], createAnswers: [], referral: { invitedCount: 0, rewardsC: 0 } };
}

let chargeSeq = 0;

/** Whole coins for `amountC` at `rateC`, rounded up to the coin's base unit, as an exact decimal string. */
function cryptoFor(amountC: number, rateC: number, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const base = (BigInt(amountC) * unit + BigInt(rateC) - 1n) / BigInt(rateC);
  return `${base / unit}.${String(base % unit).padStart(decimals, '0')}`;
}

/** A charge page with every field of the contract; `overrides` replace any of them. */
export function buildCharge(overrides: Partial<TChargePage> = {}): TChargePage {
  chargeSeq++;
  const currency = overrides.currency ?? 'ltc';
  const amountUsd = overrides.amountUsd ?? cents(2000);
  const amountCrypto = cryptoFor(amountUsd, MOCK_RATES_C[currency], DECIMALS[currency]);
  const address = `${ADDRESSES[currency].slice(0, -2)}${String(chargeSeq % 100).padStart(2, '0')}`;
  const scheme = currency === 'btc' ? 'bitcoin' : currency === 'ltc' ? 'litecoin' : null;
  const created = Date.now();
  return {
    uid: `5b0c2f44-3d0e-4d4a-9f55-${String(chargeSeq).padStart(12, '0')}`,
    code: `CH${String(chargeSeq).padStart(10, '0')}`,
    status: 'new',
    currency,
    address,
    amountCrypto,
    amountUsd,
    exchangeRate: cents(MOCK_RATES_C[currency]),
    bonusType: 0,
    date: new Date(created).toISOString(),
    expiresAt: new Date(created + (currency === 'trc20usdt' ? 40 * 60_000 : 6 * 3_600_000)).toISOString(),
    paymentUri: scheme ? `${scheme}:${address}?amount=${amountCrypto}` : address,
    receivedCrypto: '0',
    pendingCrypto: '0',
    creditedUsd: cents(0),
    bonusUsd: cents(0),
    late: false,
    over: false,
    confirmationsRequired: currency === 'trc20usdt' ? 1 : 2,
    payments: [],
    ...overrides,
  };
}

let txSeq = 1000;

/** A ledger record `daysAgo` days back; `overrides` replace any field. */
export function buildTxRecord(daysAgo: number, overrides: Partial<TTxRecord> = {}): TTxRecord {
  txSeq++;
  return {
    id: txSeq,
    time: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
    type: 'purchase',
    memo: `Proxy 198.51.100.${txSeq % 250}`,
    amtC: cents(-275),
    balC: cents(5000),
    ...overrides,
  };
}

/** Pays a charge in full (or as told): the status, the credit, and the account's balance and ledger. */
export function payCharge(
  payments: PaymentsMock,
  account: TAccount | null,
  code: string,
  change: Partial<TChargePage> = {},
): TChargePage {
  const charge = payments.charges.find((c) => c.code === code);
  if (!charge) throw new Error(`no mocked charge ${code}`);
  Object.assign(charge, {
    status: 'paid',
    receivedCrypto: charge.amountCrypto,
    creditedUsd: charge.amountUsd,
    ...change,
  });
  if (account) {
    const balance = cents(account.balanceC + charge.creditedUsd);
    account.balanceC = balance;
    account.balanceCents = balance;
    payments.txRecords.push(
      buildTxRecord(0, {
        type: 'deposit',
        memo: `${charge.currency.toUpperCase()} payment ${code}`,
        amtC: charge.creditedUsd,
        balC: balance,
      }),
    );
  }
  return charge;
}

function createCharge(payments: PaymentsMock, account: TAccount | null, body: unknown): MockAnswer {
  const scripted = payments.createAnswers.shift();
  if (scripted) return scripted;
  const parsed = ZCryptoCreateRequest.safeParse(body);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? '');
    return { status: 400, body: { error: 'VALIDATION_FAILED', message: 'bad body', field } };
  }
  if (!account?.permissions.includes(PERMISSION_DEPOSIT))
    return { status: 403, body: { error: 'FORBIDDEN', message: 'no DEPOSIT' } };
  const charge = buildCharge({ currency: parsed.data.type, amountUsd: parsed.data.amount });
  payments.charges.push(charge);
  const answer: TCryptoCreateResponse = {
    uid: charge.uid,
    type: charge.currency,
    address: charge.address,
    amount: charge.amountCrypto,
    amountUSD: charge.amountUsd,
    newChargeCode: charge.code,
    expiresAt: charge.expiresAt,
  };
  return { status: 201, body: answer };
}

function listTxRecords(payments: PaymentsMock, q: URLSearchParams): MockAnswer {
  const start = q.has('start') ? Date.parse(q.get('start')!) : -Infinity;
  const end = q.has('end') ? Date.parse(q.get('end')!) : Infinity;
  const hits = payments.txRecords
    .filter((r) => Date.parse(r.time) >= start && Date.parse(r.time) < end)
    .sort((a, b) => Date.parse(b.time) - Date.parse(a.time) || b.id - a.id);
  const offset = Number(q.get('offset') ?? 0);
  const limit = Number(q.get('limit') ?? 10);
  return { status: 200, body: { txRecords: hits.slice(offset, offset + limit), total: hits.length } };
}

/** Answers a payment call, or returns null for a path this mock does not know. */
export function answerPayments(
  payments: PaymentsMock,
  account: TAccount | null,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): MockAnswer | null {
  const route = `${method} ${path}`;
  if (route === 'POST /crypto/create') return createCharge(payments, account, body);
  if (route === 'POST /crypto/check') {
    const parsed = ZCryptoCheckRequest.safeParse(body);
    const charge = parsed.success && payments.charges.find((c) => c.uid === parsed.data.uid);
    return charge
      ? { status: 200, body: { status: charge.status, data: charge } }
      : { status: 404, body: { error: 'NOT_FOUND', message: 'no charge' } };
  }
  const page = /^GET \/crypto\/charges\/([^/]+)$/.exec(route);
  if (page) {
    const charge = payments.charges.find((c) => c.code === decodeURIComponent(page[1]!));
    return charge
      ? { status: 200, body: charge }
      : { status: 404, body: { error: 'NOT_FOUND', message: 'no charge' } };
  }
  if (route === 'GET /txrecords') return listTxRecords(payments, query);
  return null;
}
