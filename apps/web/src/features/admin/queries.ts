import type { ENDPOINTS, QueryOf, TAccount } from '@pm/contracts';
import { hashKey, type QueryClient, type QueryKey, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '../../lib/query/keys.ts';
import { type AdminClient, AdminError, type AdminUserInfo, toAdminError } from './adminClient.ts';
import { auditPersonIds } from './auditText.ts';

/** The customer staff are working on: identity data and market account (either may be missing). */
export interface LoadedUser {
  info: AdminUserInfo | null;
  account: TAccount | null;
  userId: string;
  email: string | null;
}

/** How staff asked for a customer: by e-mail (identity host first) or by identity-provider id (market first). */
export interface UserTarget {
  by: 'email' | 'id';
  value: string;
}

async function userByEmail(client: AdminClient, email: string): Promise<LoadedUser> {
  const info = await client.userInfo(email);
  const account = await client.account(info.userId).catch((e: unknown) => {
    if (e instanceof AdminError && e.status === 404) return null;
    throw e;
  });
  return { info, account, userId: info.userId, email: info.email };
}

async function userById(client: AdminClient, userId: string): Promise<LoadedUser> {
  const account = await client.account(userId);
  const info = await client.userInfo(account.email).catch(() => null);
  return { info, account, userId: account.userID, email: account.email };
}

/** One staff read: its key (lib/query/keys.ts) and how to fetch it; spread into `useQuery` or `fetchQuery`. */
export interface AdminRead<T> {
  queryKey: QueryKey;
  queryFn: () => Promise<T>;
  staleTime?: number;
}
const read = <T>(queryKey: QueryKey, queryFn: () => Promise<T>): AdminRead<T> => ({ queryKey, queryFn });

/** A customer as staff see them; a failed look-up is an error, never the previous customer. */
export const adminUserQuery = (client: AdminClient, target: UserTarget) =>
  read(queryKeys.admin.user(target.by, target.value), () =>
    target.by === 'email' ? userByEmail(client, target.value) : userById(client, target.value),
  );

/** A market account by id, for its e-mail (the audit's and the price tables' "by"): kept, e-mails do not change here. */
export const adminAccountQuery = (client: AdminClient, userId: string) => ({
  ...read(queryKeys.admin.account(userId), () => client.account(userId)),
  staleTime: Number.POSITIVE_INFINITY,
});

/** Rules §7: a lease by id; null when there is none (404). */
export const adminLeaseQuery = (client: AdminClient, id: string) =>
  read(queryKeys.admin.lease(id), () => client.lease(id));

export interface LeaseFilter {
  uid?: string;
  ip?: string;
}

/** Leases of a customer or on an IP (the first 200). */
export const adminLeasesQuery = (client: AdminClient, filter: LeaseFilter) =>
  read(queryKeys.admin.leaseList(filter), () => client.leases(filter, 200));

/** A customer's port packages (ports API). */
export const adminPortsQuery = (client: AdminClient, userId: string) =>
  read(queryKeys.admin.ports(userId), async () => (await client.portPackages(userId)).packages);

/** A customer's crypto transactions. */
export const adminCryptoQuery = (client: AdminClient, userId: string) =>
  read(queryKeys.admin.crypto(userId), () => client.cryptoTransactions(userId));

/** Held credits (a customer's, or everyone's with null) and the credited payments gone from the chain. */
export const adminHeldQuery = (client: AdminClient, userId: string | null) =>
  read(queryKeys.admin.held(userId), async () => {
    const [h, v] = await Promise.all([client.heldCredits(userId ?? undefined), client.vanished()]);
    return { held: h.items, vanished: v.items };
  });

/** A customer's ledger rows between two days (the last one excluded) with each lease's traffic. */
export const adminTxRecordsQuery = (client: AdminClient, uid: string, from: string, toExcluded: string) =>
  read(queryKeys.admin.txRecords(uid, from, toExcluded), async () => {
    const [payments, leases] = await Promise.all([
      client.payments(uid, from, toExcluded),
      client.leases({ uid }, 1000),
    ]);
    return { payments, traffic: new Map(leases.leases.map((l) => [l.id, l.trafficBytes])) };
  });

export type AuditQuery = QueryOf<typeof ENDPOINTS.listAuditEntries>;

/** The e-mail of each person id (its market account's, cached); an id without an account stays an id. */
async function emailsOf(queryClient: QueryClient, client: AdminClient, ids: string[]) {
  const found = await Promise.all(
    ids.map((id) =>
      queryClient.fetchQuery(adminAccountQuery(client, id)).then(
        (a) => [id, a.email] as const,
        () => [id, id] as const,
      ),
    ),
  );
  return new Map(found);
}

/** Audit rows and the e-mail of each person named in them. */
export const adminAuditQuery = (queryClient: QueryClient, client: AdminClient, query: AuditQuery) =>
  read(queryKeys.admin.audit(query), async () => {
    const page = await client.audit(query);
    return { ...page, emails: await emailsOf(queryClient, client, auditPersonIds(page.items)) };
  });

/** The lease price list and the port price table. */
export const pricingRulesQuery = (client: AdminClient) =>
  read(queryKeys.admin.pricingRules(), () => client.pricingRules());
export const portPricingQuery = (client: AdminClient) =>
  read(queryKeys.admin.portPricing(), () => client.portPricing());

/**
 * A read staff start with a button (Look up, Show, Load): nothing runs until `ask(input)`; asking
 * again for the same input reloads it. The error is the admin error's text (rules §8), or null.
 */
export function useAskedQuery<I, T>(
  options: (input: I) => { queryKey: QueryKey; queryFn: () => Promise<T> },
) {
  const [input, setInput] = useState<I | null>(null);
  const asked = input === null ? null : options(input);
  const query = useQuery({
    queryKey: asked?.queryKey ?? ['admin', 'not-asked'],
    queryFn: asked?.queryFn ?? (() => Promise.reject(new Error('not asked'))),
    enabled: asked !== null,
  });
  const ask = (next: I) => {
    const { queryKey } = options(next);
    if (asked && hashKey(queryKey) === hashKey(asked.queryKey)) void query.refetch();
    else setInput(next);
  };
  return {
    input,
    ask,
    data: query.isError ? undefined : query.data,
    busy: query.isFetching,
    error: query.error ? toAdminError(query.error).message : null,
  };
}
