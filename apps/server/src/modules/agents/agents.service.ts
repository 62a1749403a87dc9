import {
  AppError,
  RADIUS_SEARCH_COUNTRIES,
  SHOP_CHIP_COUNTRIES,
  type TAgent,
  type TAgentListQuery,
  type TAgentListResponse,
  type TCountryTotals,
  type TSegments,
} from '@pm/contracts';
import type { Db, DbOrTx, Tx } from '@pm/db';
import { boundingBox, type LatLon, lookupPostal } from '@pm/geo';
import type { ChangeFeed } from '../../platform/changes.ts';
import { createTtlCache } from '../../platform/ttl-cache.ts';
import type { PriceRule } from '../pricing/pricing.rules.ts';
import type { PricingService } from '../pricing/pricing.service.ts';
import { FACETS, type LapsedCounts, type ShopFilter, type ShopRow } from './agents.filter.repository.ts';
import { isNewAgent, soldSinceCutoff, toAgent } from './agents.mapper.ts';
import { type AgentRow, createAgentsRepository } from './agents.repository.ts';
import {
  type ActiveOnAgent,
  findSaleRefusal,
  type SaleAsk,
  type SaleQuote,
  saleRefusalError,
} from './agents.sale.ts';

/** What the agents service is built from. */
export interface AgentsServiceDeps {
  db: Db;
  pricing: Pick<PricingService, 'currentRules' | 'loadRules' | 'priceAgent'>;
  /** Clock (ms since epoch) for "New"; tests pass a fixed one. */
  now?: () => number;
  /**
   * How long a page or count is shared between callers (default 1000 ms; the segment lists and
   * country totals 10x as long; then served up to 10 s (30 s) longer while one refresh runs).
   * 0 turns it off. A sale clears them all.
   */
  cacheMs?: number;
  /** Cross-process invalidation: a sale clears every API process's shared pages after its commit. */
  changes?: Pick<ChangeFeed, 'publish' | 'onChange'> | undefined;
  /** A postal code's centre (default `@pm/geo`'s bundled centroids). */
  lookupPostal?: (cc: string, code: string) => Promise<LatLon | undefined>;
}

/**
 * The shop's shared-answer window (the list, one proxy, the static list): an answer is shared
 * `cacheMs` (default 1000 ms; 0 turns it off), then served up to 10 s longer while one refresh runs,
 * so a refresh slower than the window (a count or the zips of the 270,000 US agents of a million,
 * seconds on a busy database) does not make every caller wait.
 */
export const shopWindow = (cacheMs = 1000) => ({ ttlMs: cacheMs, staleMs: 10_000 });

/** The agents service's functions (derived from the factory). */
export type AgentsService = ReturnType<typeof createAgentsService>;

const badField = (field: string, userMessage: string) =>
  new AppError('VALIDATION_FAILED', { userMessage: `${field}: ${userMessage}`, details: { field } });
const agentNotFound = () => new AppError('NOT_FOUND', { userMessage: 'Proxy not found' });

/**
 * The shop's read side: the agents on sale with their filters, segments and country totals, one
 * agent by id, and the sale path's calls in its transaction (`reserveForSale`, `markSold`).
 */
export function createAgentsService(deps: AgentsServiceDeps) {
  const repo = createAgentsRepository(deps.db);
  const now = deps.now ?? Date.now;
  const findPostal = deps.lookupPostal ?? lookupPostal;
  const ttl = shopWindow(deps.cacheMs);
  const ttlMs = ttl.ttlMs;
  // The option lists and the country totals move slowly and cost the most: read 10x less often.
  const slow = { ttlMs: ttlMs * 10, staleMs: 30_000 };
  const pages = createTtlCache<ShopRow[]>({ ...ttl, maxEntries: 1000 });
  const counts = createTtlCache<number>({ ...ttl, maxEntries: 1000 });
  const segmentLists = createTtlCache<TSegments>({ ...slow, maxEntries: 200 });
  const totals = createTtlCache<Record<string, number>>({ ...slow, maxEntries: 1 });
  // The lapsed leases the counters still hold (leases.expire ends them within a minute): usually none.
  const lapsedLeases = createTtlCache<LapsedCounts>({ ...ttl, maxEntries: 1 });
  // Per caller: the agents they ever leased and whether they hold one now (masking and `used`).
  const callers = createTtlCache<Map<string, boolean>>({ ...ttl, maxEntries: 10_000 });
  // One agent's row as `GET /agents/{id}` shows it (null: no such agent), shared like a page.
  const agentRows = createTtlCache<ShopRow | null>({ ...ttl, maxEntries: 10_000 });

  function clearCaches(): void {
    for (const cache of [pages, counts, segmentLists, totals, callers, lapsedLeases, agentRows])
      cache.clear();
  }
  deps.changes?.onChange('shop', clearCaches);
  deps.changes?.onChange('agent', (id) => (id === undefined ? agentRows.clear() : agentRows.delete(id)));

  /** Checks the query's combinations and resolves the radius centre and the IP prefix. */
  async function resolveFilter(q: TAgentListQuery): Promise<ShopFilter> {
    if (q.ip2 !== undefined && q.ip1 === undefined) throw badField('ip2', 'needs ip1 (the first octet)');
    let radius: ShopFilter['radius'];
    // Advanced Search is on only with both a centre and a radius above 0 (rules §5).
    if (q.geozip !== undefined && q.georad !== undefined && q.georad > 0) {
      if (!(RADIUS_SEARCH_COUNTRIES as readonly string[]).includes(q.cc)) {
        throw badField('geozip', `radius search is not offered in ${q.cc}`);
      }
      const centre = await findPostal(q.cc, q.geozip);
      if (!centre) throw badField('geozip', `unknown postal code in ${q.cc}`);
      radius = { ...centre, miles: q.georad, box: boundingBox(centre, q.georad) };
    }
    return {
      cc: q.cc,
      reg: q.reg,
      city: q.city,
      zip: q.zip,
      isp: q.isp,
      ipPrefix: q.ip1 === undefined ? undefined : q.ip2 === undefined ? `${q.ip1}.` : `${q.ip1}.${q.ip2}.`,
      conn: q.conn,
      leases: q.leases === 'any' ? undefined : q.leases,
      fresh: q.fresh,
      soldSince: soldSinceCutoff(now()),
      minStars: q.exstars,
      radius,
    };
  }

  /** The filter as a cache key (the 30-day cutoff moves with the clock and is left out). */
  function filterKey(f: ShopFilter): string {
    const { soldSince: _, lapsed: __, radius, ...rest } = f;
    return JSON.stringify([rest, radius && [radius.lat, radius.lon, radius.miles]]);
  }

  async function loadSegments(f: ShopFilter): Promise<TSegments> {
    const [regions, cities, zips, isps] = await Promise.all(
      FACETS.map((facet) => repo.findFacetValues(f, facet)),
    );
    return { isps: isps!, zips: zips!, cities: cities!, regions: regions! };
  }

  function render(rows: ShopRow[], rules: PriceRule[], mine: Map<string, boolean>): TAgent[] {
    const nowMs = now();
    return rows.map((row) => {
      const isNew = isNewAgent(row.lastSoldAt, nowMs);
      const prices = deps.pricing.priceAgent(rules, { ...row, isNew });
      const holds = mine.get(row.id);
      return toAgent(row, prices, { holds: holds === true, used: holds !== undefined }, nowMs);
    });
  }

  // A shared page as every caller who never leased its agents sees it, rendered once per page and
  // price list (both the same objects while cached), so such callers share one array (and its JSON).
  const rendered = new WeakMap<ShopRow[], { rules: PriceRule[]; agents: TAgent[] }>();

  /** Prices and masks rows for one caller, given the agents they leased (`mine`: id -> holds one now). */
  async function present(rows: ShopRow[], mine: Map<string, boolean>): Promise<TAgent[]> {
    const rules = await deps.pricing.currentRules();
    if (rows.some((r) => mine.has(r.id))) return render(rows, rules, mine);
    const hit = rendered.get(rows);
    if (hit?.rules === rules) return hit.agents;
    const agents = render(rows, rules, mine);
    rendered.set(rows, { rules, agents });
    return agents;
  }

  /** The one availability rule (`findSaleRefusal`) on the agent row and its active leases; throws the refusal. */
  function admit(agent: AgentRow | undefined, active: ActiveOnAgent, ask: SaleAsk): AgentRow {
    const refused = findSaleRefusal(agent, active, ask);
    if (refused || !agent) throw saleRefusalError(refused ?? { refusal: 'agentNotFound', mine: false });
    return agent;
  }

  /** The admitted agent priced under `rules`. */
  function quote(agent: AgentRow, active: ActiveOnAgent, ask: SaleAsk, rules: PriceRule[]): SaleQuote {
    const isNew = isNewAgent(agent.lastSoldAt, now());
    const prices = deps.pricing.priceAgent(rules, { ...agent, isNew });
    return {
      agent,
      ...prices,
      priceC: ask.exc ? prices.priceExcC : prices.priceShrC,
      activeShared: active.shared,
      activeExclusive: active.exclusive,
      isNew,
    };
  }

  // Active at this service's clock, as every rule it applies (a test moves it instead of waiting).
  const leasesOf = (ask: SaleAsk) => ({ userId: ask.userId, excludeLeaseId: ask.renewing, atMs: now() });

  return {
    /**
     * `GET /agents`: one page of the agents on sale in `cc` under the filters, most active first,
     * with the total and the next cursor (0 at the end); with `segments` the distinct regions,
     * cities, zips and ISPs, each list ignoring its own filter. Pages, totals and segments are shared
     * between callers for `cacheMs`, and the caller's own leases (masking, `used`) kept as long;
     * `fresh` reads them all anew. 400 naming `ip2` or `geozip`.
     */
    async listAgents(
      q: TAgentListQuery,
      userId: string,
      o: { fresh?: boolean } = {},
    ): Promise<TAgentListResponse> {
      const f = {
        ...(await resolveFilter(q)),
        lapsed: await lapsedLeases.get('all', () => repo.findLapsedCounts(now()), o),
      };
      const key = filterKey(f);
      const [rows, total, segments] = await Promise.all([
        pages.get(
          `${key}|${q.cursor}|${q.limit}`,
          () => repo.findPage(f, { offset: q.cursor, limit: q.limit }),
          o,
        ),
        counts.get(key, () => repo.countListed(f), o),
        q.segments ? segmentLists.get(key, () => loadSegments(f), o) : undefined,
      ]);
      const mine = await callers.get(userId, () => repo.findUserLeasedAgents(userId, now()), o);
      const next = q.cursor + q.limit;
      return {
        agents: await present(rows, mine),
        cursor: next < total ? next : 0,
        total,
        ...(segments ? { segments } : {}),
      };
    },

    /**
     * `GET /agents/{id}`: the agent whether listed or not (offline, full); NOT_FOUND when unknown,
     * static or never connected (no node). The row and the caller's leases are shared for
     * `cacheMs` like a page (a sale clears them); `fresh` reads them anew.
     */
    async getAgent(id: string, userId: string, o: { fresh?: boolean } = {}): Promise<TAgent> {
      const row = await agentRows.get(id, async () => (await repo.findShopRow(id, now())) ?? null, o);
      if (!row || row.isStatic || row.nodeId === null) throw agentNotFound();
      const rules = await deps.pricing.currentRules();
      const mine = await callers.get(userId, () => repo.findUserLeasedAgents(userId, now()), o);
      return render([row], rules, mine)[0]!;
    },

    /**
     * `GET /totals/agents`: agents on sale per country; with `all` every country that has one,
     * otherwise the shop's chip countries (0 when none).
     */
    async countryTotals(o: { all?: boolean | undefined; fresh?: boolean } = {}): Promise<TCountryTotals> {
      const byCc = await totals.get(
        'all',
        async () => {
          const lapsed = await lapsedLeases.get('all', () => repo.findLapsedCounts(now()), o);
          return Object.fromEntries((await repo.countListedByCountry(lapsed)).map((r) => [r.cc, r.n]));
        },
        o,
      );
      if (o.all) return { countries: byCc };
      return { countries: Object.fromEntries(SHOP_CHIP_COUNTRIES.map((cc) => [cc, byCc[cc] ?? 0])) };
    },

    /**
     * The one sale path's reservation, inside the sale's transaction: locks the agent row (FOR
     * UPDATE; sales and renewals of one agent take turns), applies the one availability rule
     * (`findSaleRefusal`: known, of the right shop, online unless renewing, the buyer holds no
     * active lease on it, not full for the kind, leaving out the lease being renewed) and prices it
     * under the rules this transaction reads. Throws CONFLICT agentNotFound / agentAlreadyLeased.
     */
    async reserveForSale(agentId: string, ask: SaleAsk, tx: Tx): Promise<SaleQuote> {
      const locked = await repo.lockAgent(agentId, tx);
      // A statement of its own after the lock: it reads the leases committed while this one waited.
      const active = await repo.countActiveLeases(agentId, leasesOf(ask), tx);
      const agent = admit(locked, active, ask);
      return quote(agent, active, ask, await deps.pricing.loadRules(tx));
    },

    /**
     * The same rule and price as `reserveForSale` on a plain read, without a lock: lets a race's
     * losers be refused at once instead of queueing for the agent's row lock, and a price that moved
     * be told before the purchase's probe (the sale checks both again under the lock). One round
     * trip: the row and its leases in one read, priced with this process's price list; with
     * `expPriceC` another price than that is confirmed on the stored list before it is answered.
     */
    async checkForSale(agentId: string, ask: SaleAsk, expPriceC?: number): Promise<SaleQuote> {
      const read = await repo.findAgentWithLeases(agentId, leasesOf(ask));
      const agent = admit(read.agent, read.active, ask);
      const cached = quote(agent, read.active, ask, await deps.pricing.currentRules());
      if (expPriceC === undefined || cached.priceC === expPriceC) return cached;
      // The list may have changed within the cache's second: price on the stored one.
      return quote(agent, read.active, ask, await deps.pricing.loadRules());
    },

    /**
     * For the purchase, inside its transaction: records the sale (the agent stops being New for
     * 30 days) and drops this process's shared pages and callers' leases, so the buyer's next list
     * shows it taken and unmasked; every other API process clears them when the sale commits
     * (NOTIFY `shop`; the windows' length at the latest should a notification be lost).
     */
    async markSold(agentId: string, tx: Tx): Promise<void> {
      await repo.setLastSold(agentId, new Date(now()), tx);
      // The feed clears this process at once and every process, this one again, at the commit.
      if (deps.changes) await deps.changes.publish('shop', tx);
      else clearCaches();
    },

    /** Start of each agent's open presence interval (its Uptime); agents offline are missing. */
    async findOnlineSince(agentIds: string[], tx?: DbOrTx): Promise<Map<string, Date>> {
      return repo.findOnlineSince(agentIds, tx);
    },

    /** Drops the shared pages, counts, segments and totals (after writes this service did not make). */
    clearCaches,
  };
}
