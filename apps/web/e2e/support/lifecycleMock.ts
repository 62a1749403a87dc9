/**
 * A stand-in for the lease lifecycle routes of the market API (issue 19): renew and refund of a
 * lease, `GET /leaseHistory`, the static shop (`GET /static/list/`, `POST /static/lease`) and the
 * hourly traffic (`GET /leases/{id}/traffic`, `.csv`). Tests script refusals with the `*Answers` lists.
 */
import {
  LEASE_TRAFFIC_CSV_HEADER,
  renewalPriceC,
  type TAccount,
  type TLeaseHistoryItem,
  type TLeaseTrafficHour,
  type TStaticAgent,
} from '@pm/contracts';
import { cents } from '@pm/money';
import { buildAgent, buildLease, type MarketMock, type MockAnswer } from './marketMock.ts';

export interface StaticOffer extends TStaticAgent {
  cc: string;
}

export interface LifecycleMock {
  /** Answers the next `PATCH /leases/{id}` calls get instead of a renewal, first one first. */
  renewAnswers: MockAnswer[];
  /** Answers the next `DELETE /leases/{id}` calls get instead of a refund. */
  refundAnswers: MockAnswer[];
  history: TLeaseHistoryItem[];
  statics: StaticOffer[];
  /** Answers the next `POST /static/lease` calls get instead of a sale. */
  staticLeaseAnswers: MockAnswer[];
  /** Hourly traffic per lease id. */
  traffic: Record<string, TLeaseTrafficHour[]>;
}

const STATIC_SEEDS: Array<[string, string, string]> = [
  ['US', 'Ashburn', 'Atlantic Datacenters'],
  ['US', 'Chicago', 'Lakeshore ISP'],
  ['US', 'Dallas', 'Atlantic Datacenters'],
  ['CA', 'Montreal', 'Maple Hosting'],
  ['GB', 'London', 'Thames Colo'],
  ['AU', 'Sydney', 'Harbour Net'],
  ['DE', 'Frankfurt', 'Main Rechenzentrum'],
  ['FR', 'Paris', 'Seine Telecom'],
];

/** 24 static offers: 14 in the US (two pages of 10), the others in the five other quick countries. */
export function demoStatics(): StaticOffer[] {
  const out: StaticOffer[] = [];
  for (let n = 0; n < 24; n++) {
    const [cc, city, isp] = n < 14 ? STATIC_SEEDS[n % 3]! : STATIC_SEEDS[3 + ((n - 14) % 5)]!;
    out.push({
      id: `static-${n}`,
      cc,
      ip: `45.${60 + (n % 3)}.${n}.${10 + n}`,
      loc: { city, isp },
      conn: n % 4 === 3 ? 'cell' : 'wifi',
      priceC: cents(400 + (n % 3) * 50),
    });
  }
  return out;
}

/** A past lease (rules §3 "Lease history item"); `overrides` replace any field. */
export function buildHistoryItem(n: number, overrides: Partial<TLeaseHistoryItem> = {}): TLeaseHistoryItem {
  const agent = buildAgent(n);
  const start = Date.now() - (n * 2 + 1) * 24 * 3_600_000;
  return {
    leaseID: `hs${String(n).padStart(2, '0')}-${2000 + n}`,
    agentID: agent.id,
    ip: agent.ip.replace('___', String(100 + n)),
    socksUser: `u${n}h`,
    start: new Date(start).toISOString(),
    paidUntil: new Date(start + 24 * 3_600_000).toISOString(),
    loc: agent.loc,
    note: n % 4 === 0 ? `Scraper ${n}` : '',
    lastPaymentC: agent.priceShrC,
    purchasePriceC: agent.priceShrC,
    exc: false,
    static: false,
    endedAt: new Date(start + 24 * 3_600_000).toISOString(),
    endReason: n % 5 === 2 ? 'refunded' : 'expired',
    refunded: n % 5 === 2,
    refundAmountC: n % 5 === 2 ? agent.priceShrC : null,
    ...overrides,
  };
}

/** 24 hours of traffic ending now, busier in the afternoon, with a few failures. */
export function demoTraffic(hours = 24): TLeaseTrafficHour[] {
  const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  return Array.from({ length: hours }, (_, i) => {
    const reqs = 40 + ((i * 37) % 90);
    return {
      hour: new Date(now - (hours - 1 - i) * 3_600_000).toISOString(),
      reqs,
      fails: i % 6 === 4 ? Math.round(reqs * 0.3) : i % 3,
      authFails: i % 8 === 5 ? 3 : 0,
      inBytes: reqs * 2_400,
      outBytes: reqs * 61_000,
    };
  });
}

export function createLifecycleMock(): LifecycleMock {
  return {
    renewAnswers: [],
    refundAnswers: [],
    history: [],
    statics: demoStatics(),
    staticLeaseAnswers: [],
    traffic: {},
  };
}

const fail = (status: number, errorCode?: string, status2?: string): MockAnswer => ({
  status,
  body: {
    error: 'MOCK',
    message: errorCode ?? 'refused',
    ...(errorCode ? { errorCode } : {}),
    ...(status2 ? { status: status2 } : {}),
  },
});

function debit(account: TAccount, priceC: number): void {
  account.balanceC = cents(account.balanceC - priceC);
  account.balanceCents = account.balanceC;
}

function renew(market: MarketMock, account: TAccount | null, id: string): MockAnswer {
  const scripted = market.lifecycle.renewAnswers.shift();
  if (scripted) return scripted;
  const lease = market.leases.find((l) => l.id === id);
  if (!lease) return fail(404);
  if (!lease.renewable) return fail(409, 'notRenewable', 'RENEW_STATUS_NOT_RENEWABLE');
  const hours = (Date.parse(lease.until) - Date.parse(lease.start)) / 3_600_000;
  const priceC = renewalPriceC(lease.purchasePriceC, hours);
  if (!account || account.balanceC < priceC)
    return fail(402, 'notEnoughFunds', 'RENEW_STATUS_NOT_ENOUGH_FUNDS');
  debit(account, priceC);
  lease.until = new Date(Date.parse(lease.until) + 24 * 3_600_000).toISOString();
  lease.renewable = false;
  return { status: 200, body: { status: 'RENEW_STATUS_RENEWED', priceC, balanceC: account.balanceC, lease } };
}

function refund(market: MarketMock, account: TAccount | null, id: string): MockAnswer {
  const scripted = market.lifecycle.refundAnswers.shift();
  if (scripted) return scripted;
  const lease = market.leases.find((l) => l.id === id);
  if (!lease) return fail(404);
  if (!lease.stats.refundable) return fail(400, 'leaseNotEligible', 'REFUND_STATUS_INELIGIBLE');
  market.leases = market.leases.filter((l) => l !== lease);
  if (account) debit(account, -lease.purchasePriceC);
  return {
    status: 200,
    body: {
      status: 'REFUND_STATUS_REFUNDED',
      leaseID: lease.id,
      refundAmountC: lease.purchasePriceC,
      balanceC: account?.balanceC ?? 0,
    },
  };
}

function history(market: MarketMock, q: URLSearchParams): MockAnswer {
  const needle = (q.get('query') ?? '').toLowerCase();
  const start = q.has('start') ? Date.parse(q.get('start')!) : -Infinity;
  const end = q.has('end') ? Date.parse(q.get('end')!) : Infinity;
  const hits = market.lifecycle.history
    .filter(
      (h) => needle === '' || h.ip.toLowerCase().includes(needle) || h.note.toLowerCase().includes(needle),
    )
    .filter((h) => Date.parse(h.start) < end && Date.parse(h.paidUntil) >= start)
    .sort((a, b) => Date.parse(b.start) - Date.parse(a.start));
  const offset = Number(q.get('offset') ?? 0);
  const limit = Number(q.get('limit') ?? 10);
  return { status: 200, body: { items: hits.slice(offset, offset + limit), total: hits.length } };
}

function staticList(market: MarketMock, q: URLSearchParams): MockAnswer {
  const has = (v: string, part: string | null) => !part || v.toLowerCase().includes(part.toLowerCase());
  const hits = market.lifecycle.statics.filter(
    (s) =>
      s.cc === (q.get('cc') ?? 'US') &&
      (!q.get('ip') || s.ip.startsWith(q.get('ip')!)) &&
      has(s.loc.city, q.get('city')) &&
      has(s.loc.isp, q.get('isp')) &&
      (!q.get('conn') || s.conn === q.get('conn')),
  );
  const cursor = Number(q.get('cursor') ?? 0);
  const limit = Number(q.get('limit') ?? 10);
  const list = hits.slice(cursor, cursor + limit).map(({ cc: _cc, ...agent }) => agent);
  return { status: 200, body: { list, total: hits.length } };
}

function staticLease(market: MarketMock, account: TAccount | null, body: unknown): MockAnswer {
  const scripted = market.lifecycle.staticLeaseAnswers.shift();
  if (scripted) return scripted;
  const { agentID, expPriceC } = body as { agentID: unknown; expPriceC: number };
  if (typeof agentID !== 'string') return fail(400);
  const offer = market.lifecycle.statics.find((s) => s.id === agentID);
  if (!offer) return fail(409, 'agentNotFound');
  if (offer.priceC !== expPriceC)
    return { status: 409, body: { ...(fail(409, 'priceChanged').body as object), priceC: offer.priceC } };
  if (!account || account.balanceC < offer.priceC) return fail(402);
  debit(account, offer.priceC);
  market.lifecycle.statics = market.lifecycle.statics.filter((s) => s !== offer);
  const agent = buildAgent(0, { id: offer.id, ip: offer.ip.replace(/\.\d+$/, '.___') });
  const lease = buildLease(agent, { static: true, exc: true, purchasePriceC: offer.priceC });
  market.leases.push(lease);
  return { status: 201, body: lease };
}

function traffic(market: MarketMock, id: string, csv: boolean): MockAnswer {
  if (!market.leases.some((l) => l.id === id)) return fail(404);
  const hours = market.lifecycle.traffic[id] ?? [];
  if (!csv) return { status: 200, body: { leaseID: id, hours } };
  const lines = hours.map((h) => [h.hour, h.reqs, h.fails, h.inBytes, h.outBytes].join(','));
  return { status: 200, body: [LEASE_TRAFFIC_CSV_HEADER, ...lines].join('\n') };
}

/** Answers a lifecycle call, or null for a path it does not know. */
export function answerLifecycle(
  market: MarketMock,
  account: TAccount | null,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): MockAnswer | null {
  const route = `${method} ${path}`;
  const leasePath = /^(PATCH|DELETE) \/leases\/([^/]+)$/.exec(route);
  if (leasePath) {
    const id = decodeURIComponent(leasePath[2]!);
    return leasePath[1] === 'PATCH' ? renew(market, account, id) : refund(market, account, id);
  }
  if (route === 'GET /leaseHistory') return history(market, query);
  if (route === 'GET /static/list/' || route === 'GET /static/list') return staticList(market, query);
  if (route === 'POST /static/lease') return staticLease(market, account, body);
  const trafficPath = /^GET \/leases\/([^/]+)\/traffic(\.csv)?$/.exec(route);
  if (trafficPath) return traffic(market, decodeURIComponent(trafficPath[1]!), trafficPath[2] !== undefined);
  return null;
}
