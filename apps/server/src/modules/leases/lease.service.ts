import { randomInt } from 'node:crypto';
import { AppError } from '@pm/contracts';
import {
  LEASE_DURATION_MS,
  MAX_SHARED_LEASES,
  MAX_WHITELIST_ENTRIES,
  parseWhitelist,
  type TAuthPort,
  type TLeaseStats,
  type TSocks,
} from '@pm/contracts/leases';
import type { Db, Tx } from '@pm/db';
import { type AgentRow, type LeaseRow, leaseRepository, type NodeRow } from './lease.repository.ts';
import { computeLeaseStats } from './lease.stats.ts';

export interface CreateLeaseInput {
  userId: string;
  agentId: string;
  /** Private (exclusive) lease when true, shared otherwise. */
  exc: boolean;
  /** End of the lease; 24 hours from now by default. */
  untilMs?: number;
  static?: boolean;
  purchasePriceC?: number;
  autoRenew?: boolean;
  /** Snapshot of the agent at purchase; built from the agent row when omitted. */
  info?: Record<string, unknown>;
}

/** A lease as the API layers shape it (SPEC 3 "Lease (active)" plus the admin fields). */
export interface LeaseView {
  id: string;
  userId: string;
  agentId: string;
  exc: boolean;
  static: boolean;
  start: string;
  until: string;
  endedAt: string | null;
  refundedAt: string | null;
  refundAmountC: number | null;
  purchasePriceC: number;
  autoRenew: boolean;
  note: string;
  info: Record<string, unknown>;
  /** Null only while the agent has never connected to a node. */
  socks: TSocks | null;
  authPort: TAuthPort | null;
  stats: TLeaseStats;
}

export interface LeaseServiceDeps {
  db: Db;
  /** Clock (ms since epoch); tests pass a fixed one. */
  now?: () => number;
}

export type LeaseService = ReturnType<typeof createLeaseService>;

const ID_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const USER_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
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
  return { user: randomText(USER_LETTERS, 10), pwd: randomText(PWD_LETTERS, 16) };
}

function isUniqueViolation(e: unknown): boolean {
  for (let err = e; err && typeof err === 'object'; err = (err as { cause?: unknown }).cause) {
    if ((err as { code?: unknown }).code === '23505') return true;
  }
  return false;
}

/** Parses and checks a whitelist; 400 naming the first bad entry. */
export function validateWhitelist(input: string | readonly string[]): string[] {
  const parsed = parseWhitelist(input);
  if (!parsed.ok) {
    throw new AppError('VALIDATION_FAILED', {
      userMessage: `Invalid whitelist entry: ${parsed.bad}`,
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

function agentInfo(agent: AgentRow, activeLeases: number): Record<string, unknown> {
  return {
    ip: agent.ip,
    host: agent.host,
    loc: { cc: agent.cc, reg: agent.reg, city: agent.city, zip: agent.zip, isp: agent.isp, mob: agent.mob },
    score: agent.stars,
    leases: activeLeases,
    age: agent.firstSeen?.toISOString() ?? null,
    actv: agent.actv,
    conn: agent.conn,
    dev: agent.dev,
    blacklists: [],
  };
}

/** Lease `socks` for a lease served by `node`. */
export function toSocks(lease: Pick<LeaseRow, 'socksUser' | 'socksPwd'>, node: NodeRow): TSocks {
  return {
    host: node.publicHost,
    ip: node.publicIp,
    port: node.socksBasePort,
    user: lease.socksUser,
    pwd: lease.socksPwd,
  };
}

/** Lease `authPort`, or null while none is allocated. `node` is the node's public IP. */
export function toAuthPort(
  lease: Pick<LeaseRow, 'authPort' | 'whitelist'>,
  node: NodeRow | null,
): TAuthPort | null {
  if (lease.authPort === null || !node) return null;
  return { node: node.publicIp, port: lease.authPort, whitelist: lease.whitelist.join(',') };
}

const agentNotFound = () =>
  new AppError('CONFLICT', {
    userMessage: 'This proxy is currently offline.',
    details: { errorCode: 'agentNotFound' },
  });
const alreadyLeased = () =>
  new AppError('CONFLICT', {
    userMessage: 'This proxy is currently purchased and unavailable.',
    details: { errorCode: 'agentAlreadyLeased' },
  });
const leaseNotFound = () => new AppError('NOT_FOUND', { userMessage: 'Lease not found' });

/** Leases: creation with credentials (never overselling an agent), ending, refund marking, whitelists. */
export function createLeaseService(deps: LeaseServiceDeps) {
  const now = deps.now ?? Date.now;
  const repo = leaseRepository;

  async function insertLease(tx: Tx, input: CreateLeaseInput): Promise<LeaseRow> {
    const agent = await repo.lockAgent(tx, input.agentId);
    if (!agent?.nodeId) throw agentNotFound();
    const active = await repo.countActiveOnAgent(tx, agent.id);
    const isFull = input.exc
      ? active.shared + active.exclusive > 0
      : active.exclusive > 0 || active.shared >= MAX_SHARED_LEASES;
    if (isFull) throw alreadyLeased();
    const startMs = now();
    const creds = generateSocksCredentials();
    return repo.insert(tx, {
      id: generateLeaseId(),
      userId: input.userId,
      agentId: agent.id,
      exc: input.exc,
      static: input.static ?? false,
      start: new Date(startMs),
      until: new Date(input.untilMs ?? startMs + LEASE_DURATION_MS),
      purchasePriceC: input.purchasePriceC ?? 0,
      autoRenew: input.autoRenew ?? false,
      socksUser: creds.user,
      socksPwd: creds.pwd,
      nodeId: agent.nodeId,
      info: input.info ?? agentInfo(agent, active.shared + active.exclusive),
    });
  }

  async function getLease(id: string): Promise<LeaseView> {
    const found = await repo.findWithNode(deps.db, id);
    if (!found) throw leaseNotFound();
    const agent = await repo.findAgent(deps.db, found.lease.agentId);
    return toView(found.lease, found.node, agent);
  }

  function toView(lease: LeaseRow, node: NodeRow | null, agent: AgentRow | undefined): LeaseView {
    return {
      id: lease.id,
      userId: lease.userId,
      agentId: lease.agentId,
      exc: lease.exc,
      static: lease.static,
      start: lease.start.toISOString(),
      until: lease.until.toISOString(),
      endedAt: lease.endedAt?.toISOString() ?? null,
      refundedAt: lease.refundedAt?.toISOString() ?? null,
      refundAmountC: lease.refundAmountC,
      purchasePriceC: lease.purchasePriceC,
      autoRenew: lease.autoRenew,
      note: lease.note,
      info: lease.info as Record<string, unknown>,
      socks: node ? toSocks(lease, node) : null,
      authPort: toAuthPort(lease, node),
      stats: computeLeaseStats(
        lease,
        { online: agent?.online ?? false, speedBps: agent?.speedBps ?? null },
        now(),
      ),
    };
  }

  return {
    /**
     * Creates a lease with fresh credentials. The agent row is locked for the check-and-insert, so
     * concurrent purchases never exceed 4 shared leases or 1 private lease per agent. Pass `tx` to run
     * inside the caller's transaction (e.g. with the ledger's charge); otherwise it opens its own.
     * Throws CONFLICT `agentNotFound` / `agentAlreadyLeased`.
     */
    async createLease(input: CreateLeaseInput, tx?: Tx): Promise<LeaseView> {
      let row: LeaseRow | undefined;
      if (tx) {
        row = await insertLease(tx, input);
      } else {
        // A random id or user name may collide (astronomically rarely): retry with fresh ones.
        for (let attempt = 0; row === undefined; attempt++) {
          try {
            row = await deps.db.transaction((t) => insertLease(t, input));
          } catch (e) {
            if (attempt >= 2 || !isUniqueViolation(e)) throw e;
          }
        }
      }
      return getLease(row.id);
    },

    getLease,

    /** Ends a lease now (expiry, admin). Gateways revoke its credentials within 2 seconds. Idempotent. */
    async endLease(id: string): Promise<void> {
      const ended = await repo.markEnded(deps.db, id);
      if (!ended && !(await repo.findWithNode(deps.db, id))) throw leaseNotFound();
    },

    /**
     * Marks a lease ended and refunded with the amount credited back (the ledger credit is the
     * caller's, in the same `tx`). CONFLICT `leaseNotEligible` when it had already ended.
     */
    async refundLease(id: string, refund: { amountC: number }, tx?: Tx): Promise<LeaseView> {
      const refunded = await repo.markEnded(tx ?? deps.db, id, refund);
      if (!refunded) {
        if (!(await repo.findWithNode(tx ?? deps.db, id))) throw leaseNotFound();
        throw new AppError('CONFLICT', {
          userMessage: 'Your lease is not eligible for a refund',
          details: { errorCode: 'leaseNotEligible' },
        });
      }
      return tx ? toView(refunded, null, undefined) : getLease(id);
    },

    /** Replaces a lease's no-auth whitelist (IPv4 addresses or CIDR ranges); 400 naming a bad entry. */
    async setWhitelist(id: string, whitelist: string | readonly string[]): Promise<LeaseView> {
      const entries = validateWhitelist(whitelist);
      if (!(await repo.setWhitelist(deps.db, id, entries))) throw leaseNotFound();
      return getLease(id);
    },

    /**
     * Allocates the lease's no-auth port on its node (the lowest free one in the node's range; the
     * same port again when it has one) and stores the whitelist. Throws NOT_FOUND, CONFLICT when the
     * lease ended, UNAVAILABLE when the node has no free port.
     */
    async allocateAuthPort(id: string, whitelist: string | readonly string[]): Promise<TAuthPort> {
      const entries = validateWhitelist(whitelist);
      return deps.db.transaction(async (tx) => {
        const lease = await repo.lockLease(tx, id);
        if (!lease) throw leaseNotFound();
        if (lease.endedAt || lease.until.getTime() <= now()) {
          throw new AppError('CONFLICT', {
            userMessage: 'The lease has ended',
            details: { errorCode: 'leaseEnded' },
          });
        }
        if (!lease.nodeId) throw agentNotFound();
        const node = await repo.lockNode(tx, lease.nodeId);
        if (!node) throw agentNotFound();
        const port = lease.authPort ?? (await repo.findFreeAuthPort(tx, node));
        if (port === undefined) throw new AppError('UNAVAILABLE', { userMessage: 'Error creating port' });
        const updated = await repo.setAuthPort(tx, id, {
          nodeId: node.id,
          authPort: port,
          whitelist: entries,
        });
        return toAuthPort(updated, node)!;
      });
    },
  };
}
