import { randomInt } from 'node:crypto';
import {
  AppError,
  describeWhitelistProblem,
  LEASE_DURATION_MS,
  MAX_NOTE_LENGTH,
  MAX_WHITELIST_ENTRIES,
  parseWhitelist,
  type TAuthPort,
  type TLease,
  type TLeaseInfo,
  type TLeasesResponse,
} from '@pm/contracts';
import type { Db, DbOrTx, Tx } from '@pm/db';
import { type Cents, cents } from '@pm/money';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../../platform/db.ts';
import { type SaleQuote, saleErrors } from '../agents/agents.sale.ts';
import { type AgentsService, createAgentsService } from '../agents/agents.service.ts';
import { createPricingService } from '../pricing/pricing.service.ts';
import { createExposedLeaseReads } from './leases.exposed.repository.ts';
import {
  type LeaseAdminView,
  type LeaseParts,
  toAuthPort,
  toLease,
  toLeaseAdminView,
  toLeaseInfo,
} from './leases.mapper.ts';
import { createLeaseRepository, type LeaseRow } from './leases.repository.ts';

/** A lease to create: who, which agent, private or shared; the rest has defaults. */
export interface CreateLeaseInput {
  userId: string;
  agentId: string;
  /** Private (exclusive) lease when true, shared otherwise. */
  exc: boolean;
  /** Start of the lease; now by default (the devnet's demo leases start hours back). */
  startMs?: number;
  /** End of the lease; 24 hours from the start by default. */
  untilMs?: number;
  static?: boolean;
  purchasePriceC?: Cents;
  autoRenew?: boolean;
  /** Snapshot of the agent at purchase; built from the agent row when omitted. */
  info?: TLeaseInfo;
  /**
   * The agent as `agents.reserveForSale` reserved it in the caller's transaction (the sale path);
   * without it the lease is reserved here first (the same rule, for leases made without a sale).
   */
  reservation?: SaleQuote;
}

/** What the lease service is built from. */
export interface LeaseServiceDeps {
  db: Db;
  /** The one availability rule under the agent's lock, and agents' uptime; default: the agents service on `db`. */
  agents?: Pick<AgentsService, 'reserveForSale' | 'findOnlineSince'>;
  /** Clock (ms since epoch); tests pass a fixed one. */
  now?: () => number;
}

/** The lease service's functions (derived from the factory). */
export type LeaseService = ReturnType<typeof createLeaseService>;

const ID_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const PWD_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A fresh lease id such as `kq3x-4821`. */
export function generateLeaseId(): string {
  return `${randomText(ID_LETTERS, 4)}-${randomText('0123456789', 4)}`;
}

/** Fresh RFC 1929 credentials for a lease: user of 10 characters, password of 16. */
export function generateSocksCredentials(): { user: string; pwd: string } {
  return { user: randomText(ID_LETTERS, 10), pwd: randomText(PWD_LETTERS, 16) };
}

/** Parses and checks a whitelist; 400 naming the first bad entry. */
export function validateWhitelist(input: string | readonly string[]): string[] {
  const parsed = parseWhitelist(input);
  if (!parsed.ok) {
    throw new AppError('VALIDATION_FAILED', {
      userMessage: describeWhitelistProblem(parsed),
      details: { field: 'whitelist' },
    });
  }
  if (parsed.entries.length > MAX_WHITELIST_ENTRIES) {
    throw new AppError('VALIDATION_FAILED', {
      userMessage: `A whitelist holds at most ${MAX_WHITELIST_ENTRIES} entries`,
      details: { field: 'whitelist' },
    });
  }
  return parsed.entries;
}

const agentNotFound = saleErrors.agentNotFound;
const leaseNotFound = () => new AppError('NOT_FOUND', { userMessage: 'Lease not found' });
const agentNoteNotFound = () => new AppError('NOT_FOUND', { userMessage: 'Proxy not found' });

/** Leases: creation with credentials (never overselling an agent), reading, ending, refund marking, whitelists. */
export function createLeaseService(deps: LeaseServiceDeps) {
  const now = deps.now ?? Date.now;
  const repo = createLeaseRepository(deps.db);
  const exposed = createExposedLeaseReads(deps.db);
  const agents =
    deps.agents ?? createAgentsService({ db: deps.db, pricing: createPricingService({ db: deps.db }), now });

  async function insertLease(input: CreateLeaseInput, tx: Tx): Promise<LeaseRow> {
    const reserved =
      input.reservation ??
      (await agents.reserveForSale(
        input.agentId,
        { exc: input.exc, static: input.static ?? false, userId: input.userId },
        tx,
      ));
    const { agent } = reserved;
    const startMs = input.startMs ?? now();
    const creds = generateSocksCredentials();
    return repo.insert(
      {
        id: generateLeaseId(),
        userId: input.userId,
        agentId: agent.id,
        exc: input.exc,
        static: input.static ?? false,
        start: new Date(startMs),
        until: new Date(input.untilMs ?? startMs + LEASE_DURATION_MS),
        purchasePriceC: input.purchasePriceC ?? cents(0),
        autoRenew: input.autoRenew ?? false,
        socksUser: creds.user,
        socksPwd: creds.pwd,
        nodeId: agent.nodeId,
        info: input.info ?? toLeaseInfo(agent, reserved.activeShared + reserved.activeExclusive),
      },
      tx,
    );
  }

  /** The rows a lease's wire shape is computed from; NOT_FOUND when there is no such lease. */
  async function loadParts(id: string, tx?: DbOrTx): Promise<LeaseParts> {
    const found = await repo.findWithNode(id, tx);
    if (!found) throw leaseNotFound();
    const agent = await repo.findAgent(found.lease.agentId, tx);
    if (!agent) throw new AppError('INTERNAL', { message: `lease ${id} has no agent row` });
    const active = await repo.countActiveOnAgent(agent.id, new Date(now()), tx);
    const note = await repo.findNote(found.lease.userId, agent.id, tx);
    const since = await agents.findOnlineSince([agent.id], tx);
    return {
      ...found,
      agent,
      activeOnAgent: active.shared + active.exclusive,
      note,
      onlineSince: since.get(agent.id) ?? null,
    };
  }

  /** The lease (rules §3 "Lease (active)"); NOT_FOUND when there is none. */
  async function getLease(id: string, tx?: DbOrTx): Promise<TLease> {
    return toLease(await loadParts(id, tx), now());
  }

  return {
    /**
     * Creates a lease with fresh credentials, without a charge (devnet, fixtures). The agent is
     * reserved with the sale path's rule (`agents.reserveForSale`) for the check-and-insert, so
     * concurrent leases never exceed 4 shared leases or 1 private lease per agent. Pass `tx` to
     * run inside the caller's transaction (e.g. with the ledger's charge); otherwise it opens its
     * own. Throws CONFLICT `agentNotFound` / `agentAlreadyLeased`.
     */
    async createLease(input: CreateLeaseInput, tx?: Tx): Promise<TLease> {
      if (tx) return getLease((await insertLease(input, tx)).id, tx);
      // A random id or user name may collide (astronomically rarely): retry with fresh ones.
      for (let attempt = 0; ; attempt++) {
        try {
          const row = await deps.db.transaction((t) => insertLease(input, t));
          return getLease(row.id);
        } catch (e) {
          if (attempt >= 2 || pgErrorCode(e) !== PG_UNIQUE_VIOLATION) throw e;
        }
      }
    },

    getLease,

    /**
     * Inserts a lease inside the caller's transaction and returns its row, without reading the wire
     * shape back: a sale reads it after commit, keeping the agent locked for less time. With
     * `reservation` (the sale path's `agents.reserveForSale` in this transaction) it only inserts;
     * without, it reserves first. Same errors as `createLease`.
     */
    async insertLease(input: CreateLeaseInput, tx: Tx): Promise<LeaseRow> {
      return insertLease(input, tx);
    },

    /**
     * `GET /leases`: the user's active leases at the service's clock (not ended, `until` after
     * now), newest first, `limit` from offset `cursor`; the answer's `cursor` is the next offset, 0
     * after the last page.
     */
    async listActiveLeases(
      userId: string,
      page: { cursor: number; limit: number },
      tx?: DbOrTx,
    ): Promise<TLeasesResponse> {
      const nowMs = now();
      const rows = await repo.findActivePageOfUser(
        userId,
        { now: new Date(nowMs), offset: page.cursor, limit: page.limit },
        tx,
      );
      const shown = rows.slice(0, page.limit);
      const agentIds = [...new Set(shown.map((r) => r.agent.id))];
      const [active, notes, online] = await Promise.all([
        repo.countActiveByAgents(agentIds, new Date(nowMs), tx),
        repo.findNotes(userId, agentIds, tx),
        agents.findOnlineSince(agentIds, tx),
      ]);
      const list = shown.map((r) =>
        toLease(
          {
            ...r,
            activeOnAgent: active.get(r.agent.id) ?? 0,
            note: notes.get(r.agent.id) ?? '',
            onlineSince: online.get(r.agent.id) ?? null,
          },
          nowMs,
        ),
      );
      return { leases: list, cursor: rows.length > page.limit ? page.cursor + page.limit : 0 };
    },

    /**
     * `PATCH /leases/{id}/autoRenew`: turns auto-renew on or off on the user's lease. Another
     * user's lease is NOT_FOUND (ids cannot be probed); an ended one is CONFLICT `leaseEnded`.
     */
    async setAutoRenew(userId: string, id: string, autoRenew: boolean): Promise<TLease> {
      const updated = await repo.setAutoRenew(userId, id, autoRenew);
      if (!updated) {
        const found = await repo.findWithNode(id);
        if (found?.lease.userId !== userId) throw leaseNotFound();
        throw new AppError('CONFLICT', {
          userMessage: 'The lease has ended',
          details: { errorCode: 'leaseEnded' },
        });
      }
      return getLease(id);
    },

    /**
     * `PUT /agentnotes/{agentId}`: the user's note on an agent they hold or held a lease on,
     * trimmed; empty deletes it. NOT_FOUND for any other agent, so one user never touches another's.
     */
    async setAgentNote(userId: string, agentId: string, note: string): Promise<void> {
      if (!(await repo.hasLeased(userId, agentId))) throw agentNoteNotFound();
      const text = note.trim();
      if (text.length > MAX_NOTE_LENGTH) {
        throw new AppError('VALIDATION_FAILED', {
          userMessage: `note: at most ${MAX_NOTE_LENGTH} characters`,
          details: { field: 'note' },
        });
      }
      if (text === '') await repo.deleteNote(userId, agentId);
      else await repo.upsertNote(userId, agentId, text);
    },

    /** `DELETE /agentnotes/{agentId}`: removes the user's note (none is fine); NOT_FOUND as for setting it. */
    async deleteAgentNote(userId: string, agentId: string): Promise<void> {
      if (!(await repo.hasLeased(userId, agentId))) throw agentNoteNotFound();
      await repo.deleteNote(userId, agentId);
    },

    /** The lease with its lifecycle fields (ended, refunded), for staff and jobs. */
    async getLeaseAdminView(id: string, tx?: DbOrTx): Promise<LeaseAdminView> {
      return toLeaseAdminView(await loadParts(id, tx), now());
    },

    /** Ends a lease now (admin). Gateways revoke its credentials within 2 seconds. Idempotent. */
    async endLease(id: string, tx?: DbOrTx): Promise<void> {
      const ended = await repo.markEnded(id, tx);
      if (!ended && !(await repo.findWithNode(id, tx))) throw leaseNotFound();
    },

    /** Replaces a lease's no-auth whitelist (IPv4 addresses or CIDR ranges); 400 naming a bad entry. */
    async setWhitelist(id: string, whitelist: string | readonly string[], tx?: DbOrTx): Promise<TLease> {
      const entries = validateWhitelist(whitelist);
      if (!(await repo.setWhitelist(id, entries, tx))) throw leaseNotFound();
      return getLease(id, tx);
    },

    /**
     * Allocates the lease's no-auth port on its node (the lowest free one in the node's range; the
     * same port again when it has one) and stores the whitelist. Throws NOT_FOUND, CONFLICT when
     * the lease ended, UNAVAILABLE when the node has no free port.
     */
    async allocateAuthPort(id: string, whitelist: string | readonly string[]): Promise<TAuthPort> {
      const entries = validateWhitelist(whitelist);
      return deps.db.transaction(async (tx) => {
        const lease = await repo.lockLease(id, tx);
        if (!lease) throw leaseNotFound();
        if (lease.endedAt || lease.until.getTime() <= now()) {
          throw new AppError('CONFLICT', {
            userMessage: 'The lease has ended',
            details: { errorCode: 'leaseEnded' },
          });
        }
        if (!lease.nodeId) throw agentNotFound();
        const node = await repo.lockNode(lease.nodeId, tx);
        if (!node) throw agentNotFound();
        const port = lease.authPort ?? (await repo.findFreeAuthPort(node, tx));
        if (port === undefined) throw new AppError('UNAVAILABLE', { userMessage: 'Error creating port' });
        const updated = await repo.setAuthPort(
          id,
          { nodeId: node.id, authPort: port, whitelist: entries },
          tx,
        );
        return toAuthPort(updated, node)!;
      });
    },

    /**
     * What the webhooks scan announces, of `userIds` only (the customers with an endpoint; none
     * asks nothing), at most 1000 rows each: running leases that end within `withinMs` of `nowMs`,
     * running leases on agents offline since `seenBeforeMs` or earlier, leases ended after `sinceMs`.
     */
    events: {
      endingSoon: (nowMs: number, withinMs: number, userIds: string[]) =>
        exposed.findEndingSoon(nowMs, withinMs, userIds),
      onOfflineAgents: (nowMs: number, seenBeforeMs: number, userIds: string[]) =>
        exposed.findOnOfflineAgents(nowMs, seenBeforeMs, userIds),
      endedSince: (sinceMs: number, userIds: string[]) => exposed.findEndedSince(sinceMs, userIds),
    },
  };
}
