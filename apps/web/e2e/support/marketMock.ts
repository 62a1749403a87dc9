/**
 * A stand-in for the market API's shop and lease routes (rules §7), answered inside Playwright routes:
 * agents filtered and paged like the server does, purchases that debit the mocked balance, leases,
 * notes, auto-renew and the no-auth port. Tests steer refusals with `market.purchaseAnswers`.
 */
import {
  MAX_SHARED_LEASES,
  type TAccount,
  type TAgent,
  type TAgentListResponse,
  type TLease,
  type TSegments,
} from '@pm/contracts';
import { type Cents, cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import { answerChecks, type ChecksMock, createChecksMock } from './checksMock.ts';
import { answerLifecycle, createLifecycleMock, type LifecycleMock } from './lifecycleMock.ts';

export interface MockAnswer {
  status: number;
  body?: unknown;
}

export interface MarketMock {
  agents: TAgent[];
  leases: TLease[];
  /** Answers the next `POST /leases` calls get instead of a sale, first one first. */
  purchaseAnswers: MockAnswer[];
  /** Status `POST /authport/create/{id}` answers with (200 creates the port). */
  authPortStatus: number;
  /** Status `PATCH /leases/{id}/autoRenew` answers with (200 applies it). */
  autoRenewStatus: number;
  /** Renew, refund, history, static shop and traffic (lifecycleMock.ts). */
  lifecycle: LifecycleMock;
  /** Speed and score checks (checksMock.ts). */
  checks: ChecksMock;
  /** Every market call seen, with its query and JSON body. */
  calls: Array<{ method: string; path: string; query: URLSearchParams; body: unknown }>;
}

interface AgentSeed {
  cc: string;
  reg: string;
  city: string;
  zip: string;
  isp: string;
  ip: string;
}

const SEEDS: AgentSeed[] = [
  { cc: 'US', reg: 'Texas', city: 'Austin', zip: '78701', isp: 'Lone Star Fiber', ip: '198.51.100' },
  { cc: 'US', reg: 'Texas', city: 'Dallas', zip: '75201', isp: 'Lone Star Fiber', ip: '198.51.101' },
  { cc: 'US', reg: 'California', city: 'San Jose', zip: '95113', isp: 'Bay Cable', ip: '203.0.113' },
  { cc: 'US', reg: 'New York', city: 'Brooklyn', zip: '11201', isp: 'Empire Wireless', ip: '192.0.2' },
  { cc: 'US', reg: 'Florida', city: 'Miami', zip: '33101', isp: 'Sunshine Mobile', ip: '198.18.7' },
  { cc: 'GB', reg: 'England', city: 'London', zip: 'EC1A', isp: 'Thames Broadband', ip: '81.2.69' },
  { cc: 'GB', reg: 'Scotland', city: 'Glasgow', zip: 'G1', isp: 'Clyde Telecom', ip: '81.3.70' },
  { cc: 'CA', reg: 'Ontario', city: 'Toronto', zip: 'M5H', isp: 'Maple Net', ip: '24.48.1' },
  { cc: 'DE', reg: 'Berlin', city: 'Berlin', zip: '10115', isp: 'Spree DSL', ip: '85.214.3' },
  { cc: 'AE', reg: 'Dubai', city: 'Dubai', zip: '', isp: 'Gulf Mobile', ip: '94.200.1' },
];

/** A proxy offer with every field of rules §3; `overrides` replace any of them. */
export function buildAgent(n: number, overrides: Partial<TAgent> = {}): TAgent {
  const seed = SEEDS[n % SEEDS.length]!;
  const count = n % 7 === 3 ? 2 : n % 11 === 5 ? 1 : 0;
  return {
    id: `agent-${n}`,
    ip: `${seed.ip}.___`,
    host: '',
    loc: { cc: seed.cc, reg: seed.reg, city: seed.city, zip: seed.zip, isp: seed.isp, mob: n % 3 === 0 },
    conn: n % 3 === 0 ? 'cell' : 'wifi',
    dev: n % 4 === 0 ? 'android' : 'other',
    stars: ((n * 3) % 10) + 1,
    leases: { count, worn: n % 5 === 1 },
    priceExcC: cents(250 + (n % 4) * 25),
    priceShrC: cents(90 + (n % 4) * 10),
    firstSeen: new Date(Date.now() - (3 * 24 + (n % 24)) * 3_600_000).toISOString(),
    actv: [0.92, 0.55, 0.2][n % 3]!,
    probeActv: 0.9,
    used: false,
    online: true,
    blacklists: { listIDs: n % 6 === 2 ? ['spamhaus-xbl', 'spamhaus-pbl', 'spamcop'] : [] },
    scoreCheck: null,
    speed: null,
    age: '2019-04-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Twenty-six demo proxies: 15 in the US (two pages of 10), some shared, in GB, CA, DE and AE. */
export function demoAgents(): TAgent[] {
  const agents: TAgent[] = [];
  for (let n = 0; agents.length < 26; n++) {
    const seed = SEEDS[n % SEEDS.length]!;
    if (seed.cc === 'US' && agents.filter((a) => a.loc.cc === 'US').length >= 15) continue;
    agents.push(buildAgent(n));
  }
  return agents;
}

let leaseSeq = 0;

/** An active lease on `agent` with every field of rules §3; `overrides` replace any of them. */
export function buildLease(agent: TAgent, overrides: Partial<TLease> = {}): TLease {
  leaseSeq++;
  const start = Date.now() - 2 * 3_600_000;
  const ip = agent.ip.replace('___', String(10 + (leaseSeq % 200)));
  const info = {
    ip,
    host: `host-${agent.id}.example.net`,
    loc: agent.loc,
    score: agent.stars,
    leases: agent.leases.count + 1,
    age: agent.age,
    actv: agent.actv,
    conn: agent.conn,
    blacklists: agent.blacklists.listIDs,
  };
  return {
    id: `ls${String(leaseSeq).padStart(2, '0')}-${String(1000 + leaseSeq)}`,
    agent: `/agents/${agent.id}`,
    agentId: agent.id,
    start: new Date(start).toISOString(),
    until: new Date(start + 24 * 3_600_000).toISOString(),
    info,
    currentInfo: { ...info, speedCheck: null, speed: null, onlineSince: agent.firstSeen },
    socks: {
      host: 'gw1.proxymarket.test',
      ip: '127.0.0.1',
      port: 10_000,
      ports: [12_080, 13_080, 14_080, 15_080],
      httpPort: 16_080,
      user: `u${leaseSeq}x7k`,
      pwd: 'Secr3t-pwd',
    },
    authPort: null,
    note: '',
    autoRenew: false,
    renewable: false,
    static: false,
    exc: false,
    purchasePriceC: agent.priceShrC,
    stats: {
      reqs: 1234,
      failPct: 2.5,
      authFails: 17,
      inBytes: 1_500_000,
      outBytes: 48_000_000,
      refundable: false,
    },
    user: 'user-1',
    ...overrides,
  };
}

export function createMarketMock(): MarketMock {
  return {
    agents: demoAgents(),
    leases: [],
    purchaseAnswers: [],
    authPortStatus: 200,
    autoRenewStatus: 200,
    lifecycle: createLifecycleMock(),
    checks: createChecksMock(),
    calls: [],
  };
}

function matches(agent: TAgent, q: URLSearchParams): boolean {
  const { loc } = agent;
  const [a, b] = agent.ip.split('.');
  const checks: Array<[string, (v: string) => boolean]> = [
    ['cc', (v) => loc.cc === v],
    ['reg', (v) => loc.reg === v],
    ['city', (v) => loc.city === v],
    ['zip', (v) => loc.zip === v],
    ['isp', (v) => loc.isp === v],
    ['ip1', (v) => a === v],
    ['ip2', (v) => b === v],
    ['conn', (v) => agent.conn === v],
    ['leases', (v) => v === 'any' || (v === 'none' ? agent.leases.count === 0 : agent.leases.count > 0)],
    ['fresh', (v) => agent.leases.worn === (v === 'false')],
    ['exstars', (v) => agent.stars >= Number(v)],
    // The mock has no coordinates: a radius search keeps the centre's own postal code.
    ['geozip', (v) => loc.zip === v],
  ];
  return checks.every(([key, test]) => !q.has(key) || test(q.get(key)!));
}

const distinct = (values: string[]) => [...new Set(values.filter((v) => v !== ''))].sort();

function listAgents(market: MarketMock, q: URLSearchParams): TAgentListResponse {
  const hits = market.agents.filter((agent) => matches(agent, q));
  const cursor = Number(q.get('cursor') ?? 0);
  const limit = Number(q.get('limit') ?? 10);
  const page = hits.slice(cursor, cursor + limit);
  const answer: TAgentListResponse = {
    agents: page,
    cursor: cursor + limit < hits.length ? cursor + limit : 0,
    total: hits.length,
  };
  if (q.get('segments') === 'true') {
    const segments: TSegments = {
      regions: distinct(hits.map((a) => a.loc.reg)),
      cities: distinct(hits.map((a) => a.loc.city)),
      zips: distinct(hits.map((a) => a.loc.zip)),
      isps: distinct(hits.map((a) => a.loc.isp)),
    };
    answer.segments = segments;
  }
  return answer;
}

function purchase(market: MarketMock, account: TAccount | null, body: unknown): MockAnswer {
  const scripted = market.purchaseAnswers.shift();
  if (scripted) return scripted;
  const { agentID, expPriceC, exc } = body as { agentID: string; expPriceC: number; exc: boolean };
  const agent = market.agents.find((a) => a.id === agentID);
  if (!agent)
    return { status: 409, body: { error: 'CONFLICT', message: 'gone', errorCode: 'agentNotFound' } };
  const taken = exc ? agent.leases.count > 0 : agent.leases.count >= MAX_SHARED_LEASES;
  if (taken)
    return { status: 409, body: { error: 'CONFLICT', message: 'taken', errorCode: 'agentAlreadyLeased' } };
  const price = exc ? agent.priceExcC : agent.priceShrC;
  if (expPriceC !== price)
    return { status: 409, body: { error: 'CONFLICT', message: 'price', errorCode: 'priceChanged' } };
  if (!account || account.balanceC < price)
    return { status: 402, body: { error: 'PAYMENT_REQUIRED', message: 'funds' } };
  const balance: Cents = cents(account.balanceC - price);
  account.balanceC = balance;
  account.balanceCents = balance;
  agent.leases = { count: agent.leases.count + 1, worn: true };
  const lease = buildLease(agent, { exc, purchasePriceC: price });
  market.leases.push(lease);
  return { status: 201, body: lease };
}

/**
 * Answers a market call, or returns null for a path this mock does not know. `account` is the
 * mocked account, whose balance a purchase debits.
 */
export function answerMarket(
  market: MarketMock,
  account: TAccount | null,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): MockAnswer | null {
  const route = `${method} ${path}`;
  const lease = (id: string | undefined) => market.leases.find((l) => l.id === decodeURIComponent(id ?? ''));
  if (route === 'GET /agents') return { status: 200, body: listAgents(market, query) };
  if (route === 'GET /totals/agents') {
    const countries: Record<string, number> = {};
    for (const a of market.agents) countries[a.loc.cc] = (countries[a.loc.cc] ?? 0) + 1;
    return { status: 200, body: { countries } };
  }
  const agentPath = /^GET \/agents\/([^/]+)$/.exec(route);
  if (agentPath) {
    const agent = market.agents.find((a) => a.id === decodeURIComponent(agentPath[1]!));
    return agent
      ? { status: 200, body: agent }
      : { status: 404, body: { error: 'NOT_FOUND', message: 'no agent' } };
  }
  if (route === 'POST /leases') return purchase(market, account, body);
  if (route === 'GET /leases') return { status: 200, body: { leases: market.leases, cursor: 0 } };
  const autoRenewPath = /^PATCH \/leases\/([^/]+)\/autoRenew$/.exec(route);
  if (autoRenewPath) {
    const l = lease(autoRenewPath[1]);
    if (!l) return { status: 404, body: { error: 'NOT_FOUND', message: 'no lease' } };
    if (market.autoRenewStatus !== 200)
      return { status: market.autoRenewStatus, body: { error: 'MOCK', message: 'refused' } };
    l.autoRenew = query.get('set') === 'true';
    return { status: 200, body: l };
  }
  const notePath = /^(PUT|DELETE) \/agentnotes\/([^/]+)$/.exec(route);
  if (notePath) {
    const agentId = decodeURIComponent(notePath[2]!);
    const note = method === 'PUT' ? (body as { note: string }).note : '';
    for (const l of market.leases.filter((x) => x.agentId === agentId)) l.note = note;
    return { status: 204 };
  }
  const authPortPath = /^POST \/authport\/create\/([^/]+)$/.exec(route);
  if (authPortPath) {
    const l = lease(authPortPath[1]);
    if (!l) return { status: 404, body: { error: 'NOT_FOUND', message: 'no lease' } };
    if (market.authPortStatus !== 200)
      return { status: market.authPortStatus, body: { error: 'MOCK', message: 'refused' } };
    l.authPort = { node: '127.0.0.1', port: 21_000 + market.leases.indexOf(l), whitelist: String(body) };
    return { status: 200, body: { status: 'AUTHPORT_CREATED', authPort: l.authPort } };
  }
  return (
    answerChecks(market.checks, market.agents, account, method, path, query, body) ??
    answerLifecycle(market, account, method, path, query, body)
  );
}

type MarketCall = MarketMock['calls'][number];

/** Waits (bounded) for a market call that passes `test`, and returns it. */
export async function waitForCall(
  market: MarketMock,
  test: (call: MarketCall) => boolean,
  timeoutMs = 10_000,
): Promise<MarketCall> {
  return waitFor(() => market.calls.find(test), { timeoutMs, intervalMs: 50, what: 'the expected API call' });
}

/** A test for `waitForCall`: this method and path, with these query parameters. */
export const isCall =
  (method: string, path: string, query: Record<string, string> = {}) =>
  (call: MarketCall): boolean =>
    call.method === method &&
    call.path === path &&
    Object.entries(query).every(([k, v]) => call.query.get(k) === v);
