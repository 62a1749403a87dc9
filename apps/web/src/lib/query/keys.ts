/**
 * Every query key of the web app, declared once per entity (hierarchical, after Medusa's
 * query-key factory): a feature builds its queries from these and a change invalidates an entity's
 * prefix through `invalidate.ts`, never a list of keys copied into each mutation. The key shapes
 * are data only, so a feature's filter types stay in the feature (the factories are generic).
 */

const account = {
  all: ['account'] as const,
  my: () => [...account.all, 'my'] as const,
};

/** A range of days, first and last included (YYYY-MM-DD). */
interface DayRange {
  first: string;
  last: string;
}

/** The ledger (`/txrecords`): the Payments screen's pages. */
const payments = {
  all: ['payments'] as const,
  txRecords: (range: DayRange) => [...payments.all, 'txrecords', range.first, range.last] as const,
  page: (range: DayRange, page: number) => [...payments.txRecords(range), 'page', page] as const,
  more: (range: DayRange) => [...payments.txRecords(range), 'more'] as const,
};

/** The shop's agents; an agent's speed check lives under its detail, so the agent's prefix covers it. */
const agents = {
  all: ['agents'] as const,
  lists: () => [...agents.all, 'list'] as const,
  page: <F, P>(filter: F, paging: P) => [...agents.lists(), 'page', filter, paging] as const,
  more: <F>(filter: F, rowsPerPage: number) => [...agents.lists(), 'more', filter, rowsPerPage] as const,
  segments: <F>(filter: F) => [...agents.lists(), 'segments', filter] as const,
  detail: (id: string) => [...agents.all, 'detail', id] as const,
  speedCheck: (id: string) => [...agents.detail(id), 'speedcheck'] as const,
  totals: () => [...agents.all, 'totals'] as const,
};

/** The customer's leases; their history and traffic live under the same prefix. */
const leases = {
  all: ['leases'] as const,
  active: () => [...leases.all, 'active'] as const,
  traffic: (leaseId: string) => [...leases.all, 'traffic', leaseId] as const,
  history: () => [...leases.all, 'history'] as const,
  historyPage: <V>(view: V) => [...leases.history(), 'page', view] as const,
};

const staticProxies = {
  all: ['static'] as const,
  page: <F, P>(filter: F, paging: P) => [...staticProxies.all, 'page', filter, paging] as const,
  offer: (agentId: string) => [...staticProxies.all, 'offer', agentId] as const,
};

/** Port packages and the ports API's price and place lists. */
const ports = {
  all: ['ports'] as const,
  packages: (userId: string) => [...ports.all, 'packages', userId] as const,
  price: <O>(order: O) => [...ports.all, 'price', order] as const,
  countries: () => [...ports.all, 'countries'] as const,
  states: (country: string) => [...ports.all, 'states', country] as const,
  cities: (country: string, state: string) => [...ports.all, 'cities', country, state] as const,
};

const charges = {
  all: ['charges'] as const,
  detail: (code: string) => [...charges.all, code] as const,
};

const referral = { all: ['referral'] as const };
/** Documents and files the app reads but no one changes from it. */
const content = {
  publicOpenApi: (apiUrl: string) => ['public-openapi', apiUrl] as const,
  addon: () => ['downloads', 'addon'] as const,
  legal: () => ['legal-copy'] as const,
};
const apiKeys = { all: ['apikeys'] as const };
const webhooks = {
  all: ['webhooks'] as const,
  endpoints: () => [...webhooks.all, 'endpoints'] as const,
  deliveries: () => [...webhooks.all, 'deliveries'] as const,
};

/** The staff screens' reads (/bigadmin): every one under `admin`, by what it reads. */
const admin = {
  all: ['admin'] as const,
  /** A customer looked up by e-mail or identity-provider id: identity data and market account. */
  user: (by: 'email' | 'id', value: string) => [...admin.all, 'user', by, value] as const,
  users: () => [...admin.all, 'user'] as const,
  /** A market account by id (the audit's and the price tables' e-mails). */
  account: (userId: string) => [...admin.all, 'account', userId] as const,
  leases: () => [...admin.all, 'leases'] as const,
  lease: (id: string) => [...admin.leases(), 'one', id] as const,
  leaseList: <F>(filter: F) => [...admin.leases(), 'list', filter] as const,
  portsAll: () => [...admin.all, 'ports'] as const,
  ports: (userId: string) => [...admin.portsAll(), userId] as const,
  payments: () => [...admin.all, 'payments'] as const,
  txRecords: (uid: string, first: string, last: string) =>
    [...admin.payments(), 'txrecords', uid, first, last] as const,
  crypto: (userId: string) => [...admin.payments(), 'crypto', userId] as const,
  held: (userId: string | null) => [...admin.payments(), 'held', userId] as const,
  audits: () => [...admin.all, 'audit'] as const,
  audit: <Q>(query: Q) => [...admin.audits(), query] as const,
  pricing: () => [...admin.all, 'pricing'] as const,
  pricingRules: () => [...admin.pricing(), 'rules'] as const,
  portPricing: () => [...admin.pricing(), 'ports'] as const,
};

export const queryKeys = {
  account,
  payments,
  agents,
  leases,
  static: staticProxies,
  ports,
  charges,
  referral,
  content,
  apiKeys,
  webhooks,
  admin,
};
