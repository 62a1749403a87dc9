/**
 * One invalidation per entity, called by every change that touches it (a mutation names the
 * entities it changed, not their keys). The one rule folded in: a balance change is always a
 * ledger row (rules §3), so the account and the payments go stale together; a change that moves
 * money calls `invalidateBalance` and cannot forget either half.
 */
import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from './keys.ts';

const stale = (queryClient: QueryClient, ...keys: (readonly unknown[])[]) =>
  Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey }))).then(() => undefined);

/** The account alone (e-mail confirmation, permissions): no money moved. */
export const invalidateAccount = (queryClient: QueryClient) => stale(queryClient, queryKeys.account.all);

/**
 * Money moved: the balance (the account, and the customer staff have loaded) and its ledger rows
 * (payments, the staff's reads of them too).
 */
export const invalidateBalance = (queryClient: QueryClient) =>
  stale(
    queryClient,
    queryKeys.account.all,
    queryKeys.payments.all,
    queryKeys.admin.users(),
    queryKeys.admin.payments(),
  );

/** The customer's leases, their history and traffic, and the staff's reads of leases. */
export const invalidateLeases = (queryClient: QueryClient) =>
  stale(queryClient, queryKeys.leases.all, queryKeys.admin.leases());

/** The shop's agents (lists, details, counts): a sale changes what is on offer. */
export const invalidateAgents = (queryClient: QueryClient) => stale(queryClient, queryKeys.agents.all);

/** One agent (its detail and checks). */
export const invalidateAgent = (queryClient: QueryClient, agentId: string) =>
  stale(queryClient, queryKeys.agents.detail(agentId));

/** The static shop's offers. */
export const invalidateStatic = (queryClient: QueryClient) => stale(queryClient, queryKeys.static.all);

/** Port packages (the customer's and the staff's view of them) and their prices. */
export const invalidatePorts = (queryClient: QueryClient) =>
  stale(queryClient, queryKeys.ports.all, queryKeys.admin.portsAll());

export const invalidateApiKeys = (queryClient: QueryClient) => stale(queryClient, queryKeys.apiKeys.all);
export const invalidateWebhooks = (queryClient: QueryClient) => stale(queryClient, queryKeys.webhooks.all);

/** A customer's identity data or account as staff see it (block, password, two-factor, DEPOSIT). */
export const invalidateAdminUsers = (queryClient: QueryClient) =>
  stale(queryClient, queryKeys.admin.users(), queryKeys.account.all);

/** The staff audit trail: every staff change adds a row. */
export const invalidateAudit = (queryClient: QueryClient) => stale(queryClient, queryKeys.admin.audits());

/** New price tables: the prices customers see (agents, port packages). */
export const invalidatePrices = (queryClient: QueryClient) =>
  stale(queryClient, queryKeys.agents.all, queryKeys.ports.all);
