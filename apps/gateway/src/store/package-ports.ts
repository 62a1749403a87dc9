import { exitMatches } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import type { LeaseDirectory, LeaseEntry } from '../policy/types.ts';
import { createWhitelistMatcher } from '../policy/whitelist.ts';
import type { PgLeaseDirectory } from './lease-directory.ts';
import { PackageBudgets } from './package-budget.ts';
import {
  chooseExit,
  type ExitAgent,
  narrowGeo,
  type PackageGeo,
  parseUserTargeting,
  type Sticky,
} from './package-exits.ts';
import { placeRefusal } from './place-refusal.ts';

export {
  chooseExit,
  type ExitAgent,
  narrowGeo,
  type PackageGeo,
  parseUserTargeting,
  type UserTargeting,
} from './package-exits.ts';

interface PackageState {
  id: string;
  geo: PackageGeo;
  access: 'auth' | 'whitelist';
  login: string;
  password: string;
  whitelisted: (ip: string) => boolean;
  timerMs: number | null;
  untilMs: number;
  ports: Map<number, number>;
  /** Fingerprint of what, when changed, ends the package's open connections. */
  accessKey: string;
  /** The volume left to relay (`package-budget.ts`; endless for the unlimited port). */
  budget: LeaseEntry['budget'];
}

export interface PackagePortsOptions {
  db: DbHandle;
  nodeId: string;
  /** Full reload period (agents of the node and packages); default 5000 ms. */
  reloadMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface PackagePorts {
  ready: Promise<void>;
  /** Reloads everything now. */
  reload(): Promise<void>;
  /** The exit a port uses now, if it has connected since its last rotation (tests). */
  stickyExit(port: number): string | undefined;
  /** Asks the data path to report a package's open connections' bytes to the meter now. */
  reportOpenBytes(packageId: string): void;
  /**
   * Stops a package relaying until `untilMs` (`Date.now` ms) or `unfreeze` (a refund being decided,
   * `package-flush.ts`): its open connections are cut at their next chunk, new ones refused.
   */
  freeze(packageId: string, untilMs: number): void;
  unfreeze(packageId: string): void;
  /** The packages frozen now. */
  frozenIds(): string[];
  close(): Promise<void>;
}

/** The lease directory as the package ports read it: a private lease takes its agent from them. */
export type PackageLeases = LeaseDirectory & Pick<PgLeaseDirectory, 'isPrivateExit' | 'onPrivateExit'>;

// Active packages (the rule both processes share) of accounts not blocked, as SELECT_LEASES
// leaves out a blocked customer's leases; blocking notifies port_package_changed (migration 0019).
const LOAD_PACKAGES = `
  SELECT p.id, p.country, p.state, p.city, p.connection_type, p.access_type, p.auth_login,
         p.auth_password, p.whitelist_ips, p.switch_type, p.switch_timer, p.date_finish, p.generation,
         package_volume_bytes(p.traffic_type, p.traffic_gb) AS volume_bytes, p.upload + p.download AS used_bytes,
         array_agg(pp.port ORDER BY pp.port) AS ports, array_agg(pp.rotate_seq ORDER BY pp.port) AS seqs
  FROM port_packages p JOIN package_ports pp ON pp.package_id = p.id AND pp.node_id = $1
  WHERE package_active(p.status, p.date_finish, $2) -- $2: the injected clock, so a test moves time
    AND NOT EXISTS (SELECT 1 FROM accounts ac WHERE ac.user_id = p.user_id AND ac.blocked)
  GROUP BY p.id`;
// Every exit agent of the node; `taken` ones (a private lease holds them) are known places, not exits.
const LOAD_EXITS = `
  SELECT id, cc, reg, city, conn, active_exclusive > 0 AS taken FROM agents
  WHERE node_id = $1 AND NOT is_static`;

/**
 * Package ports of this node, added to the lease directory: every port listens; a whitelist port
 * takes its package's addresses, a login port RFC 1929 with the package's login and password; each
 * connection resolves to the port's sticky exit (`chooseExit`). Reloaded on `port_package_changed`
 * (access, status, rotation by the link: within the notification's latency) and every `reloadMs`
 * (the node's agents, their geo). A package that leaves (suspended, refunded, blocked, access
 * changed) revokes its open connections. A traffic package's connections spend its volume on the
 * relay path (`package-budget.ts`). An agent a private lease takes stops being an exit at once
 * and its package connections end (`onExitClosed`).
 */
export function withPackagePorts(
  leases: PackageLeases,
  options: PackagePortsOptions,
): { directory: LeaseDirectory; packages: PackagePorts } {
  const { db, nodeId } = options;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  let byPort = new Map<number, { pkg: PackageState; entry: LeaseEntry }>();
  let packages = new Map<string, PackageState>();
  let exits: ExitAgent[] = [];
  /** The node's exit agents, the privately leased ones too: the places a targeted login may name. */
  let knownExits: ExitAgent[] = [];
  const sticky = new Map<number, Sticky>();
  /** Sticky exits of targeted sessions, by package, port and the login's targeting (bounded). */
  const sessions = new Map<string, Sticky>();
  const MAX_SESSIONS = 100_000;
  const revokedListeners = new Set<(id: string) => void>();
  const portListeners = new Set<() => void>();
  const exitListeners = new Set<(agentId: string) => void>();
  const flushListeners = new Set<(packageId: string) => void>();
  const budgets = new PackageBudgets();
  let closed = false;

  const candidatesOf = (geo: PackageGeo) =>
    exits.filter((a) => exitMatches(a, geo) && !leases.isPrivateExit(a.id)).map((a) => a.id);
  const emit = (listeners: Set<(id: string) => void>, id: string) => {
    for (const l of listeners) {
      try {
        l(id);
      } catch (e) {
        onError(e);
      }
    }
  };
  // The lease directory hears of a private lease at once (lease_changed): the agent leaves the
  // candidates (`candidatesOf`) and its package connections end, without waiting for a reload.
  // Emitted whatever the last reload read of the agent: the gateway ends only package connections
  // it holds through it.
  const offPrivate = leases.onPrivateExit((agentId) => emit(exitListeners, agentId));

  function entryOf(pkg: PackageState, port: number): LeaseEntry {
    return {
      leaseId: pkg.id,
      agentId: '',
      user: pkg.login,
      pwd: pkg.password,
      whitelist: [],
      authPort: port,
      untilMs: pkg.untilMs,
      isPackage: true,
      budget: pkg.budget,
      resolveAgent(isOnline) {
        let s = sticky.get(port);
        if (!s) {
          s = { agentId: undefined, chosenAtMs: 0, seq: -1 };
          sticky.set(port, s);
        }
        const before = s.agentId;
        const chosen = chooseExit(s, {
          seq: pkg.ports.get(port) ?? 0,
          timerMs: pkg.timerMs,
          nowMs: now(),
          candidates: candidatesOf(pkg.geo),
          isOnline,
        });
        // The customer's table shows the exit: written back without waiting (the data path never waits on the database).
        if (chosen !== before) {
          db.query('UPDATE package_ports SET agent_id = $3 WHERE node_id = $1 AND port = $2', [
            nodeId,
            port,
            chosen ?? null,
          ]).catch(onError);
        }
        return chosen;
      },
    };
  }

  async function reload(): Promise<void> {
    const [rows, agentRows] = await Promise.all([
      db.query<Record<string, unknown>>(LOAD_PACKAGES, [nodeId, new Date(now())]),
      db.query<ExitAgent & { taken: boolean }>(LOAD_EXITS, [nodeId]),
    ]);
    if (closed) return;
    knownExits = agentRows;
    exits = agentRows.filter((a) => !a.taken);
    const nowMs = now();
    const next = new Map<string, PackageState>();
    const nextPorts = new Map<number, { pkg: PackageState; entry: LeaseEntry }>();
    for (const r of rows) {
      const whitelist = (r.whitelist_ips as string[]) ?? [];
      const pkg: PackageState = {
        id: String(r.id),
        geo: {
          country: String(r.country),
          state: String(r.state),
          city: String(r.city),
          connectionType: r.connection_type as PackageGeo['connectionType'],
        },
        access: r.access_type as 'auth' | 'whitelist',
        login: String(r.auth_login),
        password: String(r.auth_password),
        whitelisted: createWhitelistMatcher(whitelist),
        timerMs: r.switch_type === 'timer' && r.switch_timer ? Number(r.switch_timer) * 60_000 : null,
        untilMs: new Date(r.date_finish as string).getTime(),
        ports: new Map((r.ports as number[]).map((p, i) => [Number(p), Number((r.seqs as number[])[i])])),
        accessKey: `${r.access_type}|${r.auth_login}|${r.auth_password}|${whitelist.join(',')}`,
        budget: budgets.budgetOf(
          String(r.id),
          {
            generation: Number(r.generation),
            volumeBytes: r.volume_bytes === null ? null : Number(r.volume_bytes),
            usedBytes: Number(r.used_bytes),
          },
          nowMs,
        ),
      };
      next.set(pkg.id, pkg);
      for (const port of pkg.ports.keys()) nextPorts.set(port, { pkg, entry: entryOf(pkg, port) });
    }
    budgets.prune(nowMs);
    // Gone, access changed, or a new generation (reactivated: a fresh budget): open connections end.
    const revoked = [...packages.values()].filter((old) => {
      const fresh = next.get(old.id);
      return fresh?.accessKey !== old.accessKey || fresh.budget !== old.budget;
    });
    const portsChanged = nextPorts.size !== byPort.size || [...nextPorts.keys()].some((p) => !byPort.has(p));
    for (const port of sticky.keys()) if (!nextPorts.has(port)) sticky.delete(port);
    packages = next;
    byPort = nextPorts;
    for (const old of revoked) for (const l of revokedListeners) l(old.id);
    if (portsChanged) for (const l of portListeners) l();
  }

  let chain: Promise<void> = Promise.resolve();
  const enqueue = () => {
    const run = chain.then(reload);
    chain = run.catch(() => {});
    return run;
  };
  let scheduled = false;
  const onNotification = () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      enqueue().catch(onError);
    }, 20).unref();
  };
  let unlisten: (() => Promise<void>) | undefined;
  const ready = (async () => {
    unlisten = await db.listen('port_package_changed', onNotification);
    await enqueue();
  })();
  const timer = setInterval(() => enqueue().catch(onError), options.reloadMs ?? 5000);
  timer.unref();
  // The end date holds in memory too: a package past `date_finish` refuses without waiting for a reload.
  const sweep = setInterval(() => {
    const t = now();
    if ([...packages.values()].some((p) => p.untilMs <= t)) enqueue().catch(onError);
  }, 1000);
  sweep.unref();

  const directory: LeaseDirectory = {
    findByCredentials: (user, pwd) => leases.findByCredentials(user, pwd),
    credentialsOwner(user, port) {
      const hit = port === undefined ? undefined : byPort.get(port);
      if (!hit) return leases.credentialsOwner?.(user, port);
      return hit.pkg.access === 'auth' ? hit.pkg.id : undefined;
    },
    onExitClosed(listener) {
      exitListeners.add(listener);
      return () => exitListeners.delete(listener);
    },
    onFlushRequested(listener) {
      flushListeners.add(listener);
      return () => flushListeners.delete(listener);
    },
    findByAuthPort(port, sourceIp) {
      const hit = byPort.get(port);
      if (!hit) return leases.findByAuthPort(port, sourceIp);
      return hit.pkg.access === 'whitelist' && hit.pkg.whitelisted(sourceIp) ? hit.entry : undefined;
    },
    portNeedsCredentials: (port) => byPort.get(port)?.pkg.access === 'auth',
    findByPortCredentials(port, user, pwd) {
      const hit = byPort.get(port);
      if (hit?.pkg.access !== 'auth' || hit.pkg.password !== pwd) return undefined;
      if (hit.pkg.login === user) return hit.entry;
      const t = parseUserTargeting(user);
      if (!t || t.login !== hit.pkg.login) return undefined;
      // Right credentials, a place this node cannot serve: refused with the reason, not as offline.
      const refusal = placeRefusal(hit.pkg.geo, t, knownExits);
      if (refusal) return { ...hit.entry, placeRefusal: refusal };
      const geo = narrowGeo(hit.pkg.geo, t);
      if (!geo) return undefined;
      const pkg = hit.pkg;
      const key = `${pkg.id}|${port}|${geo.state}|${geo.city}|${t.session ?? ''}`;
      return {
        ...hit.entry,
        resolveAgent(isOnline) {
          let s = t.session ? sessions.get(key) : undefined;
          if (!s) {
            s = { agentId: undefined, chosenAtMs: 0, seq: -1 };
            if (t.session) {
              if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
              sessions.set(key, s);
            }
          }
          // A session keeps its exit until the port rotates (timer or link) or the exit goes offline;
          // without a session every connection may take another exit of the narrowed place.
          return chooseExit(s, {
            seq: pkg.ports.get(port) ?? 0,
            timerMs: t.session ? pkg.timerMs : 0,
            nowMs: now(),
            candidates: candidatesOf(geo),
            isOnline,
          });
        },
      };
    },
    authPorts: () => [...leases.authPorts(), ...byPort.keys()],
    onRevoked(listener) {
      revokedListeners.add(listener);
      const off = leases.onRevoked(listener);
      return () => {
        revokedListeners.delete(listener);
        off();
      };
    },
    onAuthPortsChanged(listener) {
      portListeners.add(listener);
      const off = leases.onAuthPortsChanged(listener);
      return () => {
        portListeners.delete(listener);
        off();
      };
    },
  };
  return {
    directory,
    packages: {
      ready,
      reload: enqueue,
      stickyExit: (port) => sticky.get(port)?.agentId,
      reportOpenBytes: (packageId) => emit(flushListeners, packageId),
      freeze: (packageId, untilMs) => budgets.freeze(packageId, untilMs),
      unfreeze: (packageId) => budgets.unfreeze(packageId),
      frozenIds: () => budgets.frozenIds(),
      async close() {
        closed = true;
        offPrivate();
        clearInterval(timer);
        clearInterval(sweep);
        await unlisten?.().catch(() => {});
      },
    },
  };
}
