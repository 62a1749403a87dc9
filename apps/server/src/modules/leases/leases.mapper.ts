/** Pure mapping from stored lease, agent and node rows to the contract shapes of rules §3. */
import {
  AppError,
  leaseHttpPort,
  leaseSocksPorts,
  type TAuthPort,
  type TLease,
  type TLeaseCurrentInfo,
  type TLeaseInfo,
  type TSocks,
  ZLeaseInfo,
} from '@pm/contracts';
import type { Cents } from '@pm/money';
import type { AgentRow, LeaseRow, NodeRow } from './leases.repository.ts';
import { computeLeaseStats, isRenewable } from './leases.stats.ts';

/** A lease with the lifecycle fields only staff and jobs see (the customer's shape leaves them out). */
export interface LeaseAdminView extends TLease {
  endedAt: string | null;
  refundedAt: string | null;
  refundAmountC: Cents | null;
}

/** The agent's properties as a lease shows them (`info` at purchase, `currentInfo` now). */
export function toLeaseInfo(agent: AgentRow, activeLeases: number): TLeaseInfo {
  return {
    ip: agent.ip,
    host: agent.host,
    loc: { cc: agent.cc, reg: agent.reg, city: agent.city, zip: agent.zip, isp: agent.isp, mob: agent.mob },
    score: agent.stars,
    leases: activeLeases,
    age: agent.firstSeen?.toISOString() ?? null,
    actv: agent.actv,
    conn: agent.conn,
    // The lists of the agent's current address (checks module); none before its first lookup.
    blacklists: agent.blacklistIds ?? [],
  };
}

/** `currentInfo`: the agent now, with its last speed test and since when it is online. */
export function toLeaseCurrentInfo(
  agent: AgentRow,
  activeLeases: number,
  onlineSince: Date | null = null,
): TLeaseCurrentInfo {
  const hasSpeed = agent.speedBps !== null && agent.speedCheckedAt !== null;
  return {
    ...toLeaseInfo(agent, activeLeases),
    speedCheck: agent.speedStatus,
    speed: hasSpeed ? { bps: agent.speedBps!, checkTime: agent.speedCheckedAt!.toISOString() } : null,
    onlineSince: onlineSince?.toISOString() ?? null,
  };
}

/**
 * Lease `socks` for a lease served by `node`: rules §3's base `port` and the ports the node listens
 * on for it (its base port plus the fixed offsets), so clients connect without arithmetic.
 */
export function toSocks(lease: Pick<LeaseRow, 'socksUser' | 'socksPwd'>, node: NodeRow): TSocks {
  return {
    host: node.publicHost,
    ip: node.publicIp,
    port: node.socksBasePort,
    ports: leaseSocksPorts(node.socksBasePort),
    httpPort: leaseHttpPort(node.socksBasePort),
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

/** Everything a lease's wire shape is computed from. */
export interface LeaseParts {
  lease: LeaseRow;
  node: NodeRow | null;
  agent: AgentRow;
  /** Active leases on the agent now. */
  activeOnAgent: number;
  /** The owner's note on the agent ('' when none). */
  note: string;
  /** Start of the agent's open presence interval; null while offline. */
  onlineSince: Date | null;
}

/**
 * The lease as rules §3 "Lease (active)" shapes it. `info` is the snapshot stored at purchase; a row
 * without a valid one (written by hand, e.g. in gateway tests) shows the agent's current properties.
 */
export function toLease(
  { lease, node, agent, activeOnAgent, note, onlineSince }: LeaseParts,
  nowMs: number,
): TLease {
  if (!node) throw new AppError('INTERNAL', { message: `lease ${lease.id} has no node` });
  const stored = ZLeaseInfo.safeParse(lease.info);
  return {
    id: lease.id,
    agent: `/agents/${lease.agentId}`,
    agentId: lease.agentId,
    start: lease.start.toISOString(),
    until: lease.until.toISOString(),
    info: stored.success ? stored.data : toLeaseInfo(agent, activeOnAgent),
    currentInfo: toLeaseCurrentInfo(agent, activeOnAgent, onlineSince),
    socks: toSocks(lease, node),
    authPort: toAuthPort(lease, node),
    note,
    autoRenew: lease.autoRenew,
    renewable: isRenewable(lease, nowMs),
    static: lease.static,
    exc: lease.exc,
    purchasePriceC: lease.purchasePriceC,
    stats: computeLeaseStats(lease, agent, nowMs),
    user: lease.userId,
  };
}

/** The lease with its lifecycle fields, for staff and jobs. */
export function toLeaseAdminView(parts: LeaseParts, nowMs: number): LeaseAdminView {
  return {
    ...toLease(parts, nowMs),
    endedAt: parts.lease.endedAt?.toISOString() ?? null,
    refundedAt: parts.lease.refundedAt?.toISOString() ?? null,
    refundAmountC: parts.lease.refundAmountC,
  };
}
