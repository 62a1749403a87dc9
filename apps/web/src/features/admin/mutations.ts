import type { BodyOf, ENDPOINTS, TAccount, TAdminLease, THeldCredit } from '@pm/contracts';
import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import {
  invalidateAdminUsers,
  invalidateAgents,
  invalidateAudit,
  invalidateBalance,
  invalidateLeases,
} from '../../lib/query/invalidate.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { type AdminClient, toAdminError } from './adminClient.ts';
import type { LoadedUser } from './queries.ts';

/**
 * One staff change: it runs, its answer patches the loaded customer at once where it says the new
 * state (`apply`), and what it changed goes stale and reloads behind it, the audit trail included
 * (every staff change adds a row). The error is the admin error's text (rules §8), or null.
 */
function useStaffChange<I, T>(
  run: (input: I) => Promise<T>,
  changed: (queryClient: QueryClient, input: I) => Promise<unknown>,
  apply?: (input: I, result: T) => (user: LoadedUser) => LoadedUser | null,
) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: run,
    onSuccess: (result, input) => {
      if (apply) {
        const patch = apply(input, result);
        queryClient.setQueriesData<LoadedUser>({ queryKey: queryKeys.admin.users() }, (u) =>
          u ? (patch(u) ?? u) : u,
        );
      }
      // Not awaited: the change is done when the server says so; the reloads follow.
      void Promise.all([changed(queryClient, input), invalidateAudit(queryClient)]);
    },
  });
  return {
    start: mutation.mutate,
    busy: mutation.isPending,
    error: mutation.error ? toAdminError(mutation.error).message : null,
    result: mutation.isSuccess ? mutation.data : null,
    reset: mutation.reset,
  };
}

const nothingElse = () => Promise.resolve();

export interface UserChange {
  email: string;
  reason: string;
}

/** Block or unblock (explicitly, never a toggle). */
export const useSetBlocked = (client: AdminClient) =>
  useStaffChange(
    ({ email, reason, blocked }: UserChange & { blocked: boolean }) =>
      client.setBlocked(email, blocked, reason),
    invalidateAdminUsers,
    ({ email }, r) =>
      (u) =>
        u.email === email && u.info ? { ...u, info: { ...u.info, blocked: r.blocked } } : null,
  );

export const useSetPassword = (client: AdminClient) =>
  useStaffChange(
    ({ email, reason, password }: UserChange & { password: string }) =>
      client.setPassword(email, password, reason),
    nothingElse,
  );

export const useMailResetLink = (client: AdminClient) =>
  useStaffChange(({ email, reason }: UserChange) => client.mailResetLink(email, reason), nothingElse);

export const useResetTwoFactor = (client: AdminClient) =>
  useStaffChange(
    ({ email, reason }: UserChange) => client.resetTwoFactor(email, reason),
    invalidateAdminUsers,
    ({ email }) =>
      (u) =>
        u.email === email && u.info ? { ...u, info: { ...u.info, twoFactor: false } } : null,
  );

/** A change answered with the market account: the loaded customer shows it at once. */
const accountOf =
  ({ userId }: { userId: string }, account: TAccount) =>
  (u: LoadedUser): LoadedUser | null =>
    u.userId === userId ? { ...u, account } : null;

/** Grant or revoke DEPOSIT on a market account. */
export const useSetDeposit = (client: AdminClient) =>
  useStaffChange(
    ({ userId, grant, reason }: { userId: string; grant: boolean; reason: string }) =>
      client.setDeposit(userId, grant, reason),
    invalidateAdminUsers,
    accountOf,
  );

/** A balance change in cents: money moved. */
export const useChangeBalance = (client: AdminClient) =>
  useStaffChange(
    ({ userId, deltaC, reason }: { userId: string; deltaC: number; reason: string }) =>
      client.changeBalance(userId, deltaC, reason),
    invalidateBalance,
    accountOf,
  );

/** Rules §6's refund of a running lease: it ends (the agent is free again) and money moves. */
export const useRefundLease = (client: AdminClient) =>
  useStaffChange(
    ({ lease, reason }: { lease: TAdminLease; reason: string }) => client.refundLease(lease.id, reason),
    (queryClient) =>
      Promise.all([
        invalidateLeases(queryClient),
        invalidateAgents(queryClient),
        invalidateBalance(queryClient),
      ]),
  );

/** The credit of an ended lease's price: money moves. */
export const useCreditLease = (client: AdminClient) =>
  useStaffChange(
    ({ lease, reason }: { lease: TAdminLease; reason: string }) => client.creditLease(lease.id, reason),
    (queryClient) => Promise.all([invalidateLeases(queryClient), invalidateBalance(queryClient)]),
  );

/** A deep check credits what the watcher missed: money may move. */
export const useDeepCheck = (client: AdminClient) =>
  useStaffChange(
    (body: BodyOf<typeof ENDPOINTS.deepCheckPayments>) => client.deepCheck(body),
    invalidateBalance,
  );

/** Release a held credit to the balance or mark it returned. */
export const useDecideHeld = (client: AdminClient) =>
  useStaffChange(
    ({ item, verb, note }: { item: THeldCredit; verb: 'release' | 'return'; note: string }) =>
      client.decideHeld(item.id, verb, note),
    invalidateBalance,
  );
