import { randomBytes } from 'node:crypto';
import {
  AppError,
  MAX_WEBHOOK_ENDPOINTS,
  type TWebhookDelivery,
  WEBHOOK_DELIVERY_ERRORS,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEventType,
  webhookStatusError,
  ZWebhookDeliveryError,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import { forEachItem, type ItemFailures, type JobQueue, UNREPORTED } from '../../platform/jobs.ts';
import type { LeaseService } from '../leases/leases.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { postWebhook, signWebhook, webhookUrlProblem } from './webhooks.delivery.ts';
import { deliverWebhookJob } from './webhooks.jobs.ts';
import {
  createWebhooksRepository,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from './webhooks.repository.ts';

/** A lease's "expiring" event is sent this long before its end (issue 27: 1 hour). */
export const LEASE_EXPIRING_NOTICE_MS = 60 * 60 * 1000;
/**
 * An agent must have been offline this long before `lease.agentOffline` is sent, so a reconnect
 * (agent restart, network blip, gateway redeploy) sends nothing.
 */
export const AGENT_OFFLINE_GRACE_MS = 2 * 60 * 1000;
/** How far back a scan looks for ended leases and deposits (a scan runs every minute; the event key dedupes). */
export const EVENT_SCAN_WINDOW_MS = 15 * 60 * 1000;

const toEndpoint = (r: WebhookEndpointRow) => ({ id: r.id, url: r.url, created: r.createdAt.toISOString() });
/**
 * A stored error as the log shows it: rows written before errors were classes carried the system's
 * text (`refused private address 10.0.0.5`, `connect ECONNREFUSED …`), which must not be shown.
 */
export function deliveryErrorClass(stored: string | null): string | null {
  if (stored === null || ZWebhookDeliveryError.safeParse(stored).success) return stored;
  const answered = /^answered (\d{3})$/.exec(stored);
  if (answered) return webhookStatusError(Number(answered[1]));
  if (stored.startsWith('refused')) return WEBHOOK_DELIVERY_ERRORS.refused;
  if (/timed? ?out/i.test(stored)) return WEBHOOK_DELIVERY_ERRORS.timeout;
  return WEBHOOK_DELIVERY_ERRORS.connection;
}

const toDelivery = (r: WebhookDeliveryRow): TWebhookDelivery => ({
  id: r.id,
  endpointId: r.endpointId,
  type: r.type,
  status: r.status as TWebhookDelivery['status'],
  attempts: r.attempts,
  lastStatusCode: r.lastStatusCode,
  lastError: deliveryErrorClass(r.lastError),
  created: r.createdAt.toISOString(),
  deliveredAt: r.deliveredAt ? r.deliveredAt.toISOString() : null,
});

/**
 * Customers' webhook endpoints and signed event deliveries: `emit` adds one delivery per endpoint
 * (once per event key) and queues `webhooks.deliver`; a delivery is tried until a 2xx answer or
 * WEBHOOK_MAX_ATTEMPTS tries (the job's retries back off), each try in the delivery log.
 */
export function createWebhookService(deps: {
  db: Db;
  /** The lease events are the leases module's reads (it owns the table), the deposits the ledger's. */
  leases: Pick<LeaseService, 'events'>;
  ledger: Pick<LedgerService, 'depositsSince'>;
  jobs: Pick<JobQueue, 'send'>;
  now: () => number;
  /** Lets every endpoint be http:// and on private or loopback addresses (tests). */
  allowPrivate: boolean;
  /**
   * Origins (`http://127.0.0.1:7308`) an endpoint may have although http:// or private: an exact
   * match of the URL's origin (WEBHOOK_ALLOW_URLS; `npm start` names the devnet's webhook inbox).
   */
  allowOrigins?: readonly string[] | undefined;
  /** One try's deadline; default 10 s. */
  timeoutMs?: number | undefined;
}) {
  const repo = createWebhooksRepository(deps.db);
  const allowOrigins = new Set((deps.allowOrigins ?? []).map((o) => new URL(o).origin));
  /** Whether `url` may be http:// and private: every URL in tests, the allow-listed origins otherwise. */
  const mayBePrivate = (url: string): boolean => {
    if (deps.allowPrivate) return true;
    try {
      return allowOrigins.has(new URL(url).origin);
    } catch {
      return false;
    }
  };

  /** Emits one event per row (a row that throws goes to `failures`); answers the deliveries made. */
  async function sendEach<R extends { id: string | number }>(
    rows: readonly R[],
    failures: ItemFailures,
    send: (row: R) => Promise<string[]>,
  ): Promise<number> {
    const sent = await forEachItem(rows, { idOf: (r) => String(r.id), failures }, send);
    return sent.reduce((n, ids) => n + ids.length, 0);
  }

  async function emit(
    userIds: string[],
    type: WebhookEventType,
    eventKey: string,
    data: Record<string, unknown>,
  ): Promise<string[]> {
    const endpoints = await repo.endpointsOf(userIds);
    const created = new Date(deps.now()).toISOString();
    const ids = await repo.insertDeliveries(
      endpoints.map((e) => ({
        endpointId: e.id,
        eventKey,
        type,
        payload: { id: eventKey, type, created, data: { ...data, userId: e.userId } },
      })),
    );
    for (const id of ids) await deps.jobs.send(deliverWebhookJob, { deliveryId: id });
    return ids;
  }

  return {
    /** Registers an endpoint; its secret is answered this once. */
    async createEndpoint(userId: string, url: string) {
      const problem = webhookUrlProblem(url, mayBePrivate(url));
      if (problem) {
        throw new AppError('VALIDATION_FAILED', {
          message: `webhook url ${problem}`,
          userMessage: `The URL ${problem}`,
          details: { field: 'url' },
        });
      }
      if ((await repo.countEndpoints(userId)) >= MAX_WEBHOOK_ENDPOINTS) {
        throw new AppError('CONFLICT', { userMessage: `At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints` });
      }
      const secret = `whsec_${randomBytes(32).toString('base64url')}`;
      return { ...toEndpoint(await repo.insertEndpoint({ userId, url, secret })), secret };
    },
    async listEndpoints(userId: string) {
      return { endpoints: (await repo.listEndpoints(userId)).map(toEndpoint) };
    },
    async deleteEndpoint(userId: string, id: string): Promise<void> {
      if (!(await repo.deleteEndpoint(userId, id)))
        throw new AppError('NOT_FOUND', { userMessage: 'No such webhook endpoint' });
    },
    async listDeliveries(userId: string) {
      return { deliveries: (await repo.listDeliveries(userId, 100)).map(toDelivery) };
    },
    /** A signed `ping` to one endpoint now. */
    async ping(userId: string, id: string): Promise<{ deliveryId: string }> {
      const endpoint = await repo.findEndpoint(userId, id);
      if (!endpoint) throw new AppError('NOT_FOUND', { userMessage: 'No such webhook endpoint' });
      const eventKey = `ping:${randomBytes(8).toString('hex')}`;
      const [deliveryId] = await repo.insertDeliveries([
        {
          endpointId: endpoint.id,
          eventKey,
          type: 'ping',
          payload: {
            id: eventKey,
            type: 'ping',
            created: new Date(deps.now()).toISOString(),
            data: { userId },
          },
        },
      ]);
      if (!deliveryId) throw new Error('ping delivery not inserted');
      await deps.jobs.send(deliverWebhookJob, { deliveryId });
      return { deliveryId };
    },
    emit,
    /** `lease.expiring` for running leases that end within the notice (once per lease and end time). */
    async notifyExpiringLeases(failures: ItemFailures = UNREPORTED): Promise<number> {
      const soon = await deps.leases.events.endingSoon(
        deps.now(),
        LEASE_EXPIRING_NOTICE_MS,
        await repo.endpointUserIds(),
      );
      return sendEach(soon, failures, (l) => {
        const until = l.until.toISOString();
        return emit([l.userId], 'lease.expiring', `lease.expiring:${l.id}:${until}`, {
          leaseId: l.id,
          until,
        });
      });
    },
    /**
     * `lease.agentOffline` for running leases whose agent has been offline past the grace: once per
     * lease and offline spell (the key holds the agent's last sighting, which a new spell moves).
     */
    async notifyOfflineAgents(failures: ItemFailures = UNREPORTED): Promise<number> {
      const now = deps.now();
      const leases = await deps.leases.events.onOfflineAgents(
        now,
        now - AGENT_OFFLINE_GRACE_MS,
        await repo.endpointUserIds(),
      );
      return sendEach(leases, failures, (l) => {
        const offlineSince = new Date(l.offlineSince).toISOString();
        return emit([l.userId], 'lease.agentOffline', `lease.agentOffline:${l.id}:${offlineSince}`, {
          leaseId: l.id,
          agentId: l.agentId,
          offlineSince,
        });
      });
    },
    /** Every event the scan finds: leases about to end, leases ended and deposits credited lately. */
    async scanEvents(failures: ItemFailures = UNREPORTED): Promise<number> {
      const since = deps.now() - EVENT_SCAN_WINDOW_MS;
      const userIds = await repo.endpointUserIds();
      const ended = await sendEach(await deps.leases.events.endedSince(since, userIds), failures, (l) => {
        const data = { leaseId: l.id, endedAt: l.endedAt?.toISOString() ?? null, reason: l.reason };
        return emit([l.userId], 'lease.ended', `lease.ended:${l.id}`, data);
      });
      const deposits = await deps.ledger.depositsSince(since, userIds);
      const credited = await sendEach(deposits, failures, (d) => {
        const data = { amountC: d.amtC, balanceC: d.balC, time: d.time.toISOString() };
        return emit([d.userId], 'deposit.credited', `deposit.credited:${d.id}`, data);
      });
      return ended + credited;
    },
    /**
     * One try of a delivery (the job's handler). A non-2xx answer or no answer throws so the job
     * retries with back-off, until the last try, which marks it failed instead.
     */
    async deliver(deliveryId: string): Promise<void> {
      const found = await repo.findDelivery(deliveryId);
      if (found?.delivery.status !== 'pending') return;
      const body = JSON.stringify(found.delivery.payload);
      const signature = signWebhook(found.endpoint.secret, body, Math.floor(deps.now() / 1000));
      const result = await postWebhook(
        found.endpoint.url,
        body,
        {
          [WEBHOOK_SIGNATURE_HEADER]: signature,
          'pm-event-type': found.delivery.type,
          'user-agent': 'ProxyMarket-Webhooks/1',
        },
        { allowPrivate: mayBePrivate(found.endpoint.url), timeoutMs: deps.timeoutMs },
      );
      const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
      const last = found.delivery.attempts + 1 >= WEBHOOK_MAX_ATTEMPTS;
      const error = ok ? null : (result.error ?? WEBHOOK_DELIVERY_ERRORS.connection);
      await repo.recordAttempt(deliveryId, {
        status: ok ? 'delivered' : last ? 'failed' : 'pending',
        statusCode: result.statusCode,
        error,
      });
      if (!ok && !last) throw new Error(`webhook ${deliveryId}: ${error}`);
    },
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;
