import { randomBytes, randomUUID } from 'node:crypto';
import {
  AppError,
  CHARGE_LIFETIME_MS,
  type CurrencyId,
  EMAIL_NOT_CONFIRMED_MESSAGE,
  PERMISSION_DEPOSIT,
  type TChargePage,
  type TCryptoCheckResponse,
  type TCryptoCreateRequest,
  type TCryptoCreateResponse,
  type TCryptoTransactionsResponse,
  type TDeepCheckRequest,
  type TDeepCheckResponse,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import type { ItemFailures } from '../../platform/jobs.ts';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { AuditService } from '../audit/audit.service.ts';
import { type AccountKey, deriveAddress, parseAccountKey } from './payments.address.ts';
import { DECIMALS, dueBaseUnits, formatCoins } from './payments.amounts.ts';
import type { ChainClient } from './payments.chains.ts';
import type { PaymentsSettings } from './payments.config.ts';
import type { OnCredited } from './payments.crediting.ts';
import { toChargePage, toCryptoTransaction } from './payments.mapper.ts';
import { chargeCapC } from './payments.pricing.ts';
import type { RateSource } from './payments.rates.ts';
import type { ChargeRow, PaymentsRepository } from './payments.repository.ts';
import type { PaymentsStaffRepository } from './payments.staff.repository.ts';
import type { PaymentWatcher } from './payments.watcher.ts';

/** What the payments service is built from. */
export interface PaymentServiceDeps {
  db: Db;
  repo: PaymentsRepository;
  staffRepo: Pick<PaymentsStaffRepository, 'listUserPayments'>;
  accounts: Pick<AccountService, 'getAccount'>;
  audit: Pick<AuditService, 'record'>;
  rates: Pick<RateSource, 'quote'>;
  clients: Partial<Record<CurrencyId, ChainClient>>;
  watcher: Pick<PaymentWatcher, 'scanCharge' | 'watchOnce'>;
  settings: PaymentsSettings | undefined;
  now: () => number;
}

/** The payments service's functions (derived from the factory). */
export type PaymentService = ReturnType<typeof createPaymentService>;

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** A charge page code: 12 characters, about 60 bits, so codes cannot be guessed one after another. */
function newChargeCode(): string {
  return [...randomBytes(12)].map((b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

const notFound = () => new AppError('NOT_FOUND', { userMessage: 'Charge not found' });

/** Crypto charges: creating (or answering again), reading, staff deep-check and listing. */
export function createPaymentService(deps: PaymentServiceDeps) {
  const { repo } = deps;
  const keys: Partial<Record<CurrencyId, AccountKey>> = {};
  for (const [currency, text] of Object.entries(deps.settings?.xpubs ?? {}) as [CurrencyId, string][]) {
    keys[currency] = parseAccountKey(currency, text);
  }
  /** Confirmations a payment of the whole charge needs (by its amount). */
  const confirmations = (c: ChargeRow) => deps.clients[c.currency]?.confirmationsFor(c.amountUsdC) ?? 1;

  async function page(charge: ChargeRow): Promise<TChargePage> {
    const payments = await repo.findPayments([charge.id]);
    return toChargePage(charge, payments, new Date(deps.now()), confirmations(charge));
  }

  /** The charge if `userId` may see it (its owner, or staff); NOT_FOUND otherwise, so ids cannot be probed. */
  function visible(charge: ChargeRow | undefined, viewer: { userId: string; isStaff: boolean }): ChargeRow {
    if (!charge || (charge.userId !== viewer.userId && !viewer.isStaff)) throw notFound();
    return charge;
  }

  return {
    /** The `payments.watch` job: one watcher pass (the job's schedule says how often). */
    async runWatchPass(failures?: ItemFailures): Promise<void> {
      if (!deps.settings) return;
      await deps.watcher.watchOnce(failures);
    },

    /**
     * Creates a charge for the caller (DEPOSIT permission required), or answers the caller's
     * open charge in the same currency and amount again, as it is (its quote and expiry), when
     * nothing has been paid to it. A new charge reuses the caller's expired, never-paid address
     * once its watch window has ended, else derives the next one. At most `maxOpenCharges` open
     * at once (RATE_LIMITED). The rate is locked now; no fresh rate refuses with UNAVAILABLE.
     */
    async createCharge(
      caller: { userId: string },
      input: TCryptoCreateRequest,
    ): Promise<TCryptoCreateResponse> {
      if (input.user_id !== undefined && input.user_id !== caller.userId) {
        throw new AppError('FORBIDDEN', {
          message: `${caller.userId} asked for a charge for ${input.user_id}`,
          userMessage: 'A charge can only be created for your own account',
        });
      }
      const account = await deps.accounts.getAccount(caller.userId);
      if (!account.permissions.includes(PERMISSION_DEPOSIT)) {
        throw new AppError('FORBIDDEN', {
          message: `${caller.userId} has no DEPOSIT permission`,
          userMessage: "Your account is under review. You can't add funds until your account is reviewed.",
          details: { errorCode: 'depositNotAllowed' },
        });
      }
      if (!account.emailVerified) {
        throw new AppError('FORBIDDEN', {
          message: `${caller.userId} has not confirmed the address`,
          userMessage: EMAIL_NOT_CONFIRMED_MESSAGE,
          details: { errorCode: 'emailNotConfirmed' },
        });
      }
      const key = keys[input.type];
      if (!key || !deps.settings) {
        throw new AppError('UNAVAILABLE', {
          message: `no xpub configured for ${input.type}`,
          userMessage: 'Payment Error: Please try again later.',
          details: { errorCode: 'currencyUnavailable' },
        });
      }
      const settings = deps.settings;
      const dec = DECIMALS[input.type];
      const now = new Date(deps.now());
      // Asked before the transaction (no network inside it); only a new charge needs it.
      const quoted = await deps.rates.quote(input.type).catch((e: unknown) => e as Error);
      const charge = await deps.db.transaction(async (tx) => {
        // One customer's creates run one at a time, so the open-charge limit and reuse hold.
        await repo.lockUserCurrency(caller.userId, '*', tx);
        const open = await repo.findOpenCharge(caller.userId, input.type, input.amount, now, tx);
        if (open) return open; // the same charge, its quote unchanged: never re-priced silently
        if ((await repo.countOpenCharges(caller.userId, now, tx)) >= settings.maxOpenCharges) {
          throw new AppError('RATE_LIMITED', {
            message: `${caller.userId} has ${settings.maxOpenCharges} open charges`,
            userMessage: `You have ${settings.maxOpenCharges} unpaid charges open. Pay one or wait until it expires.`,
            details: { errorCode: 'tooManyOpenCharges' },
          });
        }
        if (quoted instanceof Error) throw quoted;
        const quote = quoted;
        const expiresAt = new Date(now.getTime() + CHARGE_LIFETIME_MS[input.type]);
        const priced = {
          code: newChargeCode(),
          amountUsdC: input.amount,
          rateC: quote.rateC,
          rateSource: quote.source,
          dueBase: dueBaseUnits(input.amount, quote.rateC, dec),
          bonusPct: settings.bonusPct,
          capC: chargeCapC(input.amount, settings.capMultiple),
          status: 'new' as const,
          createdAt: now,
          expiresAt,
          watchUntil: new Date(expiresAt.getTime() + settings.graceMs),
          nextCheckAt: now,
          checkFailures: 0,
          lastCheckedAt: null,
        };
        // An address of the customer's that was never paid and is no longer watched serves again,
        // so abandoned charges do not widen the wallet's gap of unused addresses.
        const spare = await repo.lockReusableAddress(caller.userId, input.type, key.fingerprint, now, tx);
        if (spare) return repo.updateCharge(spare.id, priced, tx);
        const index = await repo.nextIndex(input.type, tx);
        return repo.insertCharge(
          {
            id: randomUUID(),
            userId: caller.userId,
            currency: input.type,
            address: deriveAddress(key, index),
            xpubFp: key.fingerprint,
            derivationIndex: index,
            ...priced,
          },
          tx,
        );
      });
      return {
        uid: charge.id,
        type: charge.currency,
        address: charge.address,
        amount: formatCoins(charge.dueBase, dec),
        amountUSD: charge.amountUsdC,
        newChargeCode: charge.code,
        expiresAt: charge.expiresAt.toISOString(),
      };
    },

    /** `POST /crypto/check`: the charge's status and page data. Read-only: only the watcher credits. */
    async checkCharge(
      viewer: { userId: string; isStaff: boolean },
      uid: string,
    ): Promise<TCryptoCheckResponse> {
      const data = await page(visible(await repo.findChargeById(uid), viewer));
      return { status: data.status, data };
    },

    /** The charge page's data by its code (owner or staff). */
    async getChargePage(viewer: { userId: string; isStaff: boolean }, code: string): Promise<TChargePage> {
      return page(visible(await repo.findChargeByCode(code), viewer));
    },

    /** Staff: one user's crypto payments, newest first. */
    async listTransactions(f: {
      userId: string;
      offset: number;
      limit: number;
      start?: Date | undefined;
      end?: Date | undefined;
    }): Promise<TCryptoTransactionsResponse> {
      const { rows, total } = await deps.staffRepo.listUserPayments(f);
      return { transactions: rows.map((r) => toCryptoTransaction(r.p, r.c)), total };
    },

    /**
     * Staff: rescans the matching charges' addresses (whatever their age) and credits what the
     * watcher missed. Safe to repeat: crediting goes through the same exactly-once keys.
     * Audited as `payment.deepCheck` (target: the customer): one row per credited output, written
     * in that credit's transaction, and one look-up row for each customer whose charges were
     * rescanned and got nothing. A filter that matches no charge (404) writes no row.
     */
    async deepCheck(actorId: string, input: TDeepCheckRequest): Promise<TDeepCheckResponse> {
      let charges: ChargeRow[];
      if (input.uid || input.address || input.user_id || input.user_email) {
        charges = await repo.findCharges({
          id: input.uid,
          address: input.address,
          userId: input.user_id,
          email: input.user_email,
          currency: input.type,
        });
      } else {
        // A txid alone (btc or ltc): the transaction's outputs name the charges' addresses.
        const currency = input.type as 'btc' | 'ltc';
        const client = deps.clients[currency];
        if (!client?.findTx)
          throw new AppError('UNAVAILABLE', { userMessage: `${currency} is not configured` });
        const outputs = (await client.findTx(input.txid as string)) ?? [];
        charges = [];
        for (const address of new Set(outputs.map((o) => o.address))) {
          charges.push(...(await repo.findCharges({ address, currency })));
        }
      }
      if (charges.length === 0) throw new AppError('NOT_FOUND', { userMessage: 'No charge matches' });
      const credited: TDeepCheckResponse['credited'] = [];
      const creditedUsers = new Set<string>();
      const onCredited: OnCredited = async (tx, c) => {
        creditedUsers.add(c.charge.userId);
        await deps.audit.record(tx, {
          actorId,
          action: 'payment.deepCheck',
          targetId: c.charge.userId,
          before: {
            chargeId: c.charge.id,
            txid: c.payment.txid,
            outKey: c.payment.outKey,
            state: c.payment.state,
          },
          after: {
            chargeId: c.charge.id,
            state: 'credited',
            creditedC: c.creditC,
            bonusC: c.bonusC,
            heldC: c.heldC,
            balanceC: c.balanceC ?? null,
          },
        });
      };
      for (const charge of charges) {
        if (!deps.clients[charge.currency]) continue;
        const rows = await deps.watcher.scanCharge(
          { ...charge, hasPayments: true },
          { onlyTxid: input.txid, onCredited },
        );
        if (rows !== 'idle') credited.push(...rows.map((p) => toCryptoTransaction(p, charge)));
      }
      const lookedUp = new Map<string, string[]>();
      for (const c of charges) {
        if (!creditedUsers.has(c.userId)) lookedUp.set(c.userId, [...(lookedUp.get(c.userId) ?? []), c.id]);
      }
      if (lookedUp.size > 0) {
        const query = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
        await deps.db.transaction(async (tx) => {
          for (const [userId, mine] of lookedUp) {
            await deps.audit.record(tx, {
              actorId,
              action: 'payment.deepCheck',
              targetId: userId,
              before: { query, charges: mine },
              after: { credited: [], creditedC: 0 },
            });
          }
        });
      }
      const ids = charges.map((c) => c.id);
      const payments = await repo.findPayments(ids);
      const now = new Date(deps.now());
      // One read of the charges the pass may have changed, kept in the filter's order (newest first).
      const fresh = new Map((await repo.findChargesByIds(ids)).map((c) => [c.id, c]));
      const reloaded = ids.map((id) => fresh.get(id)).filter((c): c is ChargeRow => !!c);
      const byId = new Map(reloaded.map((c) => [c.id, c]));
      return {
        charges: [...byId.values()].map((c) => ({
          ...toChargePage(
            c,
            payments.filter((p) => p.chargeId === c.id),
            now,
            confirmations(c),
          ),
          userId: c.userId,
        })),
        credited,
        transactions: payments.map((p) => toCryptoTransaction(p, byId.get(p.chargeId) as ChargeRow)),
      };
    },
  };
}
