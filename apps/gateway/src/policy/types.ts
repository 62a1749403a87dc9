/**
 * The seam between the gateway's data path (SOCKS sessions, agent tunnels) and its control
 * plane (what it learns from PostgreSQL, what it writes back). The data path only ever calls
 * these synchronous lookups and buffered recorders: it never waits on the database.
 */

import type { Duplex } from 'node:stream';
import type { FailureClass, MuxStream, StreamBudget } from '@pm/tunnel';

/**
 * A volume's allowance on the relay path (a traffic port package): each connection holds a grant
 * that its stream spends per chunk both ways and refills from here (`StreamBudget`); a connection
 * that finds nothing left is reset, and new ones are refused while nothing is left.
 */
export interface ByteBudget extends StreamBudget {
  /** Whether a new connection may open (some allowance is left). */
  hasLeft(): boolean;
  /** Gives a new connection's stream its first grant (before any byte is relayed). */
  grant(st: MuxStream): void;
  /** Takes back what a closed connection's stream did not spend. */
  release(st: MuxStream): void;
}

/** What the data path needs to know about a lease to relay for it. */
export interface LeaseEntry {
  leaseId: string;
  agentId: string;
  /** RFC 1929 credentials of this lease (each shared lease on an agent has its own). */
  user: string;
  pwd: string;
  /** Whitelisted source addresses for the no-auth port: IPv4 addresses or CIDR ranges. */
  whitelist: string[];
  /** No-auth port on this node, when one is allocated. */
  authPort: number | null;
  /** Lease end (ms since epoch); the data path refuses after this even before a reload. */
  untilMs: number;
  /**
   * The only lease on its agent (private or static): its connections may use the agent's whole
   * stream limit. Otherwise (shared, or not said) each lease gets a sharer's part of it.
   */
  exclusive?: boolean;
  /**
   * The seam between an entitlement and its exit: when set, each connection asks it for the agent
   * to use (a package port: a sticky agent matching its geo, re-chosen on rotation or when offline),
   * given which agents have a live tunnel here; undefined means no exit now. Unset: `agentId`.
   */
  resolveAgent?(isOnline: (agentId: string) => boolean): string | undefined;
  /**
   * A port package's connection: all packages' connections through one agent together take one
   * sharer's part of its stream limit (`streamShare`), whatever `exclusive` says.
   */
  isPackage?: boolean;
  /** The volume left to relay, when limited (a traffic package); unset: unlimited. */
  budget?: ByteBudget;
  /**
   * A targeted login this node cannot serve (an unknown place, or one outside its package,
   * `place-refusal.ts`): the credentials are right, and every connection is refused with this text.
   */
  placeRefusal?: string;
}

/** The gateway's in-memory view of active leases on this node, kept fresh by the control plane. */
export interface LeaseDirectory {
  /** Lease for RFC 1929 credentials, or undefined (wrong user/password, ended, other node). */
  findByCredentials(user: string, pwd: string): LeaseEntry | undefined;
  /** Lease owning a no-auth port if `sourceIp` is whitelisted for it, else undefined. */
  findByAuthPort(port: number, sourceIp: string): LeaseEntry | undefined;
  /**
   * A port of this node that takes RFC 1929 credentials instead of a source whitelist (a package
   * port with login access); such a port is checked with `findByPortCredentials`.
   */
  portNeedsCredentials?(port: number): boolean;
  /** The entitlement of a credentials port for this user name and password, or undefined. */
  findByPortCredentials?(port: number, user: string, pwd: string): LeaseEntry | undefined;
  /** Every no-auth port currently allocated on this node (the data path listens on these). */
  authPorts(): number[];
  /** Called with a lease id whenever a lease ends, is refunded or its credentials/whitelist change. */
  onRevoked(listener: (leaseId: string) => void): () => void;
  /** Called when the set of no-auth ports changes. */
  onAuthPortsChanged(listener: () => void): () => void;
  /**
   * The entitlement refused credentials name, to count the refusal apart (`countAuthFailure`): the
   * lease of `user` on the shared ports, or the package of credentials `port`; undefined if none.
   */
  credentialsOwner?(user: string, port?: number): string | undefined;
  /**
   * Called with an agent that stopped being an exit for package ports (a private lease took it):
   * package connections through it must end now.
   */
  onExitClosed?(listener: (agentId: string) => void): () => void;
  /**
   * Called with an entitlement whose exact counters were asked for (a refund decision): the data
   * path reports its open connections' bytes to the meter now; the control plane flushes after.
   */
  onFlushRequested?(listener: (leaseId: string) => void): () => void;
}

/** How a SOCKS request (CONNECT) ended: relayed, or failed with the class of its cause. */
export type RequestResult = 'ok' | FailureClass;

/**
 * Traffic counters per lease, buffered in memory and flushed in batches by the control plane.
 * Every failure counts in `fails` (the customer's Failed %); the `agent` ones also in `agentFails`
 * (what the auto-refund reads, docs/gateway.md "Failure classes"). Refused credentials are not
 * requests: they count in `authFails` only.
 */
export interface LeaseMeter {
  /** One SOCKS request (CONNECT) for the lease and how it ended. */
  countRequest(leaseId: string, result: RequestResult): void;
  /** Bytes relayed: `up` customer-to-proxy, `down` proxy-to-customer. */
  addBytes(leaseId: string, up: number, down: number): void;
  /** Marks an earlier successful request as failed by the agent (its tunnel died mid-transfer). */
  countFailureAfterSuccess(leaseId: string): void;
  /** Credentials naming the lease or package were refused (wrong password): never a request or a failure. */
  countAuthFailure(leaseId: string): void;
}

/** What the control plane learns about an agent that dialed in. */
export interface AgentHello {
  /** Observed public address of the agent's tunnel connection (or the devnet override). */
  ip: string;
  conn: 'wifi' | 'cell';
  dev: 'android' | 'other';
}

/** Agent registry: authenticates agent keys and keeps the agents table up to date. */
export interface AgentRegistry {
  /** Agent id for a key (keys are stored hashed), or undefined when unknown. Async: at tunnel setup only. */
  authenticate(key: string): Promise<string | undefined>;
  connected(agentId: string, hello: AgentHello): void;
  disconnected(agentId: string): void;
}

/**
 * Opens a TCP connection through an agent connected to this node, for the control plane's probes
 * and speed tests (added by the control plane; the gateway handle is expected to provide it).
 */
export interface AgentDialer {
  /** Resolves with the relayed stream once the agent reached `host:port`; rejects when it could not. */
  dial(agentId: string, host: string, port: number): Promise<Duplex>;
}
