import { AppError, type TNewPortRequest, type TPortPackage, type TPortPriceRequest } from '@pm/contracts';
import type { Tx } from '@pm/db';
import type { Cents } from '@pm/money';
import { type SaleKey, saleFingerprint } from '../sales/sales.service.ts';
import { checkWhitelist, type PortsCaller, type PortsContext, portsErrors } from './ports.context.ts';
import { DAY_MS, randomText } from './ports.mapper.ts';
import { computePortPrice, portCount } from './ports.pricing.ts';
import type { ExitFilter } from './ports.repository.ts';

const purchaseErrors = {
  notTheCaller: () =>
    new AppError('FORBIDDEN', { message: 'user_id is not the caller', userMessage: 'Forbidden' }),
  whitelistEmpty: () =>
    new AppError('VALIDATION_FAILED', {
      message: 'access.whitelist_ips: at least one address for whitelist access',
      details: { field: 'access.whitelist_ips' },
    }),
  noExits: (filter: ExitFilter) =>
    new AppError('CONFLICT', {
      message: `no exits for ${JSON.stringify(filter)}`,
      userMessage: 'No proxies are online for this location and connection type',
      details: { errorCode: 'noExits' },
    }),
  noPorts: (nodeId: string, free: number) =>
    new AppError('UNAVAILABLE', {
      message: `node ${nodeId} has ${free} free package ports`,
      userMessage: 'No free ports right now, try again later',
    }),
};

/** Where the package's exits come from, as the request asks. */
const filterOf = (req: TNewPortRequest): ExitFilter => ({
  country: req.geo.country,
  state: req.geo.state ?? '',
  city: req.geo.city ?? '',
  connectionType: req.geo.connection_type,
});

/** The switch timer a package keeps: the request's (5 by default) for timer packages, none for api. */
const timerOf = (req: TNewPortRequest) => (req.switch.type === 'timer' ? (req.switch.timer ?? 5) : null);

/**
 * The fingerprint of a package purchase: the whole request as parsed (defaults filled, the
 * whitelist split and trimmed, the port count an unlimited port ignores as 1), so a retry under the
 * same key with another city, port count, access, whitelist, switch or price is another request.
 */
export function portPurchaseFingerprint(req: TNewPortRequest): string {
  const isUnlimited = req.traffic.type === 'unlimit';
  return saleFingerprint('port', [
    req.user_id,
    req.user_email ?? null,
    req.price,
    req.time_period,
    [req.traffic.type, isUnlimited ? 0 : (req.traffic.amount ?? 0)],
    [req.geo.region ?? '', req.geo.country, req.geo.state ?? '', req.geo.city ?? '', req.geo.connection_type],
    [req.access.type, req.access.whitelist_ips ?? [], portCount(req)],
    [req.switch.type, timerOf(req)],
  ]);
}

function checkRequest(caller: PortsCaller, req: TNewPortRequest): void {
  if (req.user_id !== caller.userId) throw purchaseErrors.notTheCaller();
  const whitelist = req.access.whitelist_ips ?? [];
  checkWhitelist(whitelist, req.traffic.type === 'unlimit');
  if (req.access.type === 'whitelist' && whitelist.length === 0) throw purchaseErrors.whitelistEmpty();
}

/** The ledger memo of a purchase: what was bought. */
function memoOf(id: string, req: TNewPortRequest, count: number): string {
  const volume = req.traffic.type === 'unlimit' ? 'unlimited' : `${req.traffic.amount} Gb`;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return `Port package ${id}: ${volume}, ${plural(count, 'port')}, ${plural(req.time_period, 'day')}`;
}

/**
 * Pricing and buying a port package through the sale kernel: one transaction claims the
 * Idempotency-Key (the whole request's fingerprint), re-checks the price against the table, takes
 * the node with the most matching exits and its ports, charges through `ledger.charge` and stores
 * the package and the key's answer; a refusal stores nothing.
 */
export function createPortPurchase(ctx: PortsContext) {
  const { deps, repo } = ctx;

  /** The purchase's transaction; returns the package id (the one a replayed key answered included). */
  async function sellIn(caller: PortsCaller, req: TNewPortRequest, key: SaleKey | undefined, tx: Tx) {
    if (key) {
      const prior = await deps.saleKeys.claim(key, tx);
      if (prior?.packageId) return prior.packageId;
    }
    // Under the transaction: a price table replaced since the plain check is seen here.
    const priceC = computePortPrice(await ctx.priceTable(tx), req);
    if (priceC !== req.price) throw portsErrors.priceChanged(priceC);
    const filter = filterOf(req);
    const best = await repo.findBestNode(filter, tx);
    if (!best) throw purchaseErrors.noExits(filter);
    const count = portCount(req);
    const ports = await repo.allocatePorts(best.node.id, count, tx);
    if (ports.length < count) throw purchaseErrors.noPorts(best.node.id, ports.length);
    const id = `pp-${randomText(12)}`;
    // 402 notEnoughFunds, 403 accountBlocked; the key's row claimed above is what makes a retry charge nothing.
    await deps.ledger.charge(
      {
        userId: caller.userId,
        amountC: priceC,
        type: 'port',
        memo: memoOf(id, req, count),
        idemKey: `port:${id}:1`,
      },
      tx,
    );
    const nowMs = deps.now();
    const isUnlimited = req.traffic.type === 'unlimit';
    await repo.insertPackage(
      {
        id,
        userId: caller.userId,
        userEmail: req.user_email ?? caller.email,
        priceC,
        periodDays: req.time_period,
        trafficType: req.traffic.type,
        trafficGb: isUnlimited ? 0 : (req.traffic.amount ?? 0),
        region: req.geo.region ?? '',
        ...filter,
        switchType: req.switch.type,
        switchTimer: timerOf(req),
        apiKey: randomText(24),
        accessType: req.access.type,
        authLogin: `u${randomText(11)}`,
        authPassword: randomText(16),
        whitelistIps: req.access.whitelist_ips ?? [],
        nodeId: best.node.id,
        portAmount: count,
        status: 'active',
        dateStart: new Date(nowMs),
        dateFinish: new Date(nowMs + req.time_period * DAY_MS),
      },
      ports,
      tx,
    );
    if (key) await deps.saleKeys.record(key, { packageId: id, priceC }, tx);
    return id;
  }

  return {
    /** What a package would cost now, from the operator's price table. */
    async price(req: TPortPriceRequest): Promise<{ price: Cents }> {
      return { price: computePortPrice(await ctx.priceTable(), req) };
    },

    /**
     * Buys a package: the price must equal the table's (else CONFLICT `priceChanged` with the
     * price), the node is the one with the most matching exits (none: CONFLICT `noExits`; no free
     * ports: UNAVAILABLE), the charge goes through ledger.charge (402 `notEnoughFunds`, 403
     * `accountBlocked`). With `idemKey` a retry or a parallel twin of the same request answers the
     * first package, charged once; the key with any other request is CONFLICT `idempotencyKeyReused`.
     */
    async createPackage(caller: PortsCaller, req: TNewPortRequest, idemKey?: string): Promise<TPortPackage> {
      checkRequest(caller, req);
      const key: SaleKey | undefined = idemKey
        ? { userId: caller.userId, idemKey, kind: 'port', fingerprint: portPurchaseFingerprint(req) }
        : undefined;
      if (key) {
        const prior = await deps.saleKeys.findPrior(key);
        if (prior?.packageId) return ctx.readPackageById(prior.packageId);
      }
      // A plain read first: a stale price is told at once, before any lock.
      const priceC = computePortPrice(await ctx.priceTable(), req);
      if (priceC !== req.price) throw portsErrors.priceChanged(priceC);
      const sell = () => deps.db.transaction((tx) => sellIn(caller, req, key, tx));
      // Twins under one key wait their turn in memory, not on the key's row with a pool connection each.
      const id = key
        ? await deps.saleKeys.inTurn(`port-key:${key.userId}\n${key.idemKey}`, sell)
        : await sell();
      return ctx.readPackageById(id);
    },
  };
}
