import type { BodyOf, QueryOf, TAdminLease, TIdentityUserInfo } from '@pm/contracts';
import { ENDPOINTS } from '@pm/contracts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { type ApiClient, ApiError, isApiError } from '../../lib/api/transport.ts';

/** Rules §8 (Admin): a 400 shows the server's text; every other failure is this. */
export const ADMIN_GLOBAL_ERROR = 'global error';

/**
 * The one error every admin call throws: the status (null: no answer) and the text to show. It is
 * an ApiError the transport has already acted on (401 → sign-in), so a failed admin query shows in
 * its tab and never raises the app's global error (app/queryClient.ts).
 */
export class AdminError extends ApiError {
  constructor(status: number | null, message: string) {
    super(status, null, 'none', message);
    this.name = 'AdminError';
  }
}

/**
 * The server's text from an error body: its `message` (the market API, the ports API and the
 * identity host's admin API answer the same `ZErrorBody`; `error` is the code, not for people), or
 * a plain-text body.
 */
export function serverText(body: unknown): string | undefined {
  if (typeof body === 'string' && body.trim()) return body.trim();
  if (!body || typeof body !== 'object') return undefined;
  const { message } = body as { message?: unknown };
  return typeof message === 'string' && message ? message : undefined;
}

/**
 * Maps any failure of an admin call to the one error model (rules §8): a 400 is the server's text;
 * anything else is 'global error', followed by the status and the server's text when there is one
 * (staff need to know a 409 "Balance cannot go below zero" from an outage).
 */
export function toAdminError(e: unknown): AdminError {
  if (e instanceof AdminError) return e;
  if (isApiError(e)) {
    const text = serverText(e.body);
    if (e.status === 400 && text) return new AdminError(400, text);
    const detail = e.status !== null && text && e.status < 500 ? ` (${e.status}: ${text})` : '';
    return new AdminError(e.status, `${ADMIN_GLOBAL_ERROR}${detail}`);
  }
  return new AdminError(null, ADMIN_GLOBAL_ERROR);
}

/** Identity host's user data for staff (rules §3, Admin user data, plus the user id). */
export type AdminUserInfo = TIdentityUserInfo;

/** Admin calls answer their errors to the screen, not to the global error (401 still signs in again). */
const HANDLED = [400, 402, 403, 404, 409, 413, 422, 429, 500, 503];
const handled = { ignoreStatuses: HANDLED };

/**
 * The admin area's one typed client. Users (info, block, password, reset link) live on the identity
 * host's admin API (`/administator/user/*`, kept as rules §7 names it for outside callers); accounts,
 * leases, payments and the audit trail on the market API's staff routes; a customer's ports on the
 * ports API (`GET /users/{id}/packages`, which lets staff read anyone's). Both go through the app's
 * transport (bearer token, timeout, 401 → sign-in) and every failure becomes an `AdminError`.
 */
export function createAdminClient({
  api,
  identity,
  ports,
}: {
  api: ApiClient;
  identity: ApiClient;
  /** The ports API (its own base address); staff read any customer's packages there. */
  ports: ApiClient;
}) {
  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw toAdminError(e);
    }
  }
  // Generic, so each call's query is checked against its own operation's schema.
  const q = <Q>(query: Q) => ({ ...handled, query });

  return {
    userInfo: (email: string) =>
      call(() => callEndpoint(identity, ENDPOINTS.getUserInfo, { ...handled, body: { email } })),
    /** Sets the block state explicitly (never the toggle), with an optional reason. */
    setBlocked: (email: string, blocked: boolean, reason?: string) =>
      call(() =>
        callEndpoint(identity, ENDPOINTS.blockUser, {
          ...handled,
          body: { email, blocked, ...(reason ? { reason } : {}) },
        }),
      ),
    setPassword: (email: string, password: string, reason?: string) =>
      call(() =>
        callEndpoint(identity, ENDPOINTS.setUserPassword, {
          ...handled,
          body: { email, password, ...(reason ? { reason } : {}) },
        }),
      ),
    mailResetLink: (email: string, reason?: string) =>
      call(() =>
        callEndpoint(identity, ENDPOINTS.mailUserResetLink, {
          ...handled,
          body: { email, ...(reason ? { reason } : {}) },
        }),
      ),

    resetTwoFactor: (email: string, reason?: string) =>
      call(() =>
        callEndpoint(identity, ENDPOINTS.resetUserTwoFactor, {
          ...handled,
          body: { email, ...(reason ? { reason } : {}) },
        }),
      ),

    account: (userId: string) =>
      call(() => callEndpoint(api, ENDPOINTS.getAccount, { ...handled, params: { id: userId } })),
    /** Grants or revokes DEPOSIT; the reason goes to the audit row. */
    setDeposit: (userId: string, grant: boolean, reason: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.updateAccount, {
          ...handled,
          params: { id: userId },
          body: {
            permissions: grant ? { add: ['DEPOSIT'] } : { remove: ['DEPOSIT'] },
            ...(reason.trim() ? { reason: reason.trim() } : {}),
          },
        }),
      ),
    changeBalance: (userId: string, balanceDeltaC: number, reason: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.updateAccount, {
          ...handled,
          params: { id: userId },
          body: { balanceDeltaC, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      ),

    /** Rules §7: a 404 gives null. */
    lease: async (id: string): Promise<TAdminLease | null> => {
      try {
        return await call(() => callEndpoint(api, ENDPOINTS.getAdminLease, { ...handled, params: { id } }));
      } catch (e) {
        if (e instanceof AdminError && e.status === 404) return null;
        throw e;
      }
    },
    leases: (filter: { uid?: string; ip?: string }, limit = 1000) =>
      call(() => callEndpoint(api, ENDPOINTS.findAdminLeases, q({ ...filter, offset: 0, limit }))),
    /** Rules §6's refund for a lease, on the customer's request: the customer's rule (static: 1 hour, unused). */
    refundLease: (id: string, reason: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.staffRefundLease, {
          ...handled,
          params: { id },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),
    creditLease: (id: string, reason: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.creditLease, {
          ...handled,
          params: { id },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),

    portPackages: (userId: string) =>
      call(() => callEndpoint(ports, ENDPOINTS.listPortPackages, { ...handled, params: { id: userId } })),

    cryptoTransactions: (userId: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.listCryptoTransactions, q({ user_id: userId, offset: 0, limit: 1000 })),
      ),
    deepCheck: (body: BodyOf<typeof ENDPOINTS.deepCheckPayments>) =>
      call(() => callEndpoint(api, ENDPOINTS.deepCheckPayments, { ...handled, body })),
    heldCredits: (userId?: string) =>
      call(() =>
        callEndpoint(api, ENDPOINTS.listHeldCredits, q({ user_id: userId, offset: 0, limit: 1000 })),
      ),
    decideHeld: (id: number, verb: 'release' | 'return', note: string) =>
      call(() =>
        callEndpoint(api, verb === 'release' ? ENDPOINTS.releaseHeldCredit : ENDPOINTS.returnHeldCredit, {
          ...handled,
          params: { id },
          body: { note },
        }),
      ),
    vanished: () => call(() => callEndpoint(api, ENDPOINTS.listVanishedPayments, handled)),

    /** Rules §7/9: the admin payments load is offset 0, limit 1000, dates YYYY-MM-DD. */
    payments: (uid: string, start: string, end: string) =>
      call(() => callEndpoint(api, ENDPOINTS.listTxRecords, q({ uid, offset: 0, limit: 1000, start, end }))),

    audit: (query: QueryOf<typeof ENDPOINTS.listAuditEntries>) =>
      call(() => callEndpoint(api, ENDPOINTS.listAuditEntries, q(query))),

    /** The lease price list and the port price table (market API, staff; PUT replaces all). */
    pricingRules: () => call(() => callEndpoint(api, ENDPOINTS.getPricingRules, handled)),
    savePricingRules: (body: BodyOf<typeof ENDPOINTS.replacePricingRules>) =>
      call(() => callEndpoint(api, ENDPOINTS.replacePricingRules, { ...handled, body })),
    portPricing: () => call(() => callEndpoint(api, ENDPOINTS.getPortPricing, handled)),
    savePortPricing: (body: BodyOf<typeof ENDPOINTS.replacePortPricing>) =>
      call(() => callEndpoint(api, ENDPOINTS.replacePortPricing, { ...handled, body })),
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;
