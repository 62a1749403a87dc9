import type { DbHandle } from '@pm/db';
import type { LeaseDirectory, LeaseEntry } from '../policy/types.ts';
import { createWhitelistMatcher } from '../policy/whitelist.ts';

/** An exit candidate of this node as the package ports see it. */
export interface ExitAgent {
  id: string;
  cc: string;
  reg: string;
  city: string;
  conn: 'wifi' | 'cell';
}

/** A package's targeting. */
export interface PackageGeo {
  country: string;
  state: string;
  city: string;
  connectionType: 'wifi' | 'mobile' | 'both';
}

/** The exit rule (the server's `exitCondition` says the same): country, state, city (any case), connection. */
export function matchesGeo(a: ExitAgent, g: PackageGeo): boolean {
  const same = (x: string, y: string) =>
    x.replaceAll(' ', '').toLowerCase() === y.replaceAll(' ', '').toLowerCase();
  if (a.cc !== g.country) return false;
  if (g.state && !same(a.reg, g.state)) return false;
  if (g.city && !same(a.city, g.city)) return false;
  if (g.connectionType === 'wifi') return a.conn === 'wifi';
  if (g.connectionType === 'mobile') return a.conn === 'cell';
  return true;
}

/** What a login may add after the package's login: `LOGIN-country-us-state-ny-city-new_york-session-abc123`. */
export interface UserTargeting {
  login: string;
  country?: string;
  state?: string;
  city?: string;
  session?: string;
}

/**
 * Reads targeting from a user name (docs/gateway.md, "Targeting in the user name"): the package's
 * login, then `-key-value` pairs (`country`, `state`, `city`, `session`; keys case-insensitive,
 * `_` for a space in a value). Undefined when a key is unknown, repeated or without a value.
 */
export function parseUserTargeting(user: string): UserTargeting | undefined {
  const [login, ...rest] = user.split('-');
  if (!login || rest.length % 2 !== 0) return undefined;
  const out: UserTargeting = { login };
  for (let i = 0; i < rest.length; i += 2) {
    const key = rest[i]!.toLowerCase();
    const value = rest[i + 1]!.replaceAll('_', ' ');
    if (!value || !['country', 'state', 'city', 'session'].includes(key)) return undefined;
    if (out[key as keyof UserTargeting] !== undefined) return undefined;
    out[key as 'country' | 'state' | 'city' | 'session'] = key === 'session' ? rest[i + 1]! : value;
  }
  if (out.session !== undefined && !/^[A-Za-z0-9_]{1,64}$/.test(out.session)) return undefined;
  return out;
}

/**
 * The geo a targeted login asks for, inside its package's (a login may narrow, never widen or
 * leave it): undefined when it contradicts the package. City names compare without spaces, so
 * `newyork` and `new_york` both mean New York.
 */
export function narrowGeo(pkg: PackageGeo, t: UserTargeting): PackageGeo | undefined {
  const same = (a: string, b: string) =>
    a.replaceAll(' ', '').toLowerCase() === b.replaceAll(' ', '').toLowerCase();
  if (t.country && !same(t.country, pkg.country)) return undefined;
  if (t.state && pkg.state && !same(t.state, pkg.state)) return undefined;
  if (t.city && pkg.city && !same(t.city, pkg.city)) return undefined;
  return { ...pkg, state: pkg.state || t.state || '', city: pkg.city || t.city || '' };
}

/** One port's sticky exit: the agent, when it was chosen and the rotation sequence it was chosen at. */
interface Sticky {
  agentId: string | undefined;
  chosenAtMs: number;
  seq: number;
}

/**
 * Chooses a port's exit: keeps the sticky agent while it is online, its timer has not run out
 * and no rotation was asked for; otherwise takes another matching online agent (the same one only
 * when it is the only one), at random so the ports of a package spread over the exits.
 */
export function chooseExit(
  sticky: Sticky,
  o: {
    seq: number;
    timerMs: number | null;
    nowMs: number;
    candidates: readonly string[];
    isOnline: (id: string) => boolean;
    random?: () => number;
  },
): string | undefined {
  const keep =
    sticky.agentId !== undefined &&
    sticky.seq === o.seq &&
    (o.timerMs === null || o.nowMs - sticky.chosenAtMs < o.timerMs) &&
    o.candidates.includes(sticky.agentId) &&
    o.isOnline(sticky.agentId);
  if (keep) return sticky.agentId;
  const online = o.candidates.filter((id) => o.isOnline(id));
  const others = online.length > 1 ? online.filter((id) => id !== sticky.agentId) : online;
  const pick = others.length ? others[Math.floor((o.random ?? Math.random)() * others.length)] : undefined;
  sticky.agentId = pick;
  sticky.chosenAtMs = o.nowMs;
  sticky.seq = o.seq;
  return pick;
}

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
  close(): Promise<void>;
}

const LOAD_PACKAGES = `
  SELECT p.id, p.country, p.state, p.city, p.connection_type, p.access_type, p.auth_login,
         p.auth_password, p.whitelist_ips, p.switch_type, p.switch_timer, p.date_finish,
         array_agg(pp.port ORDER BY pp.port) AS ports, array_agg(pp.rotate_seq ORDER BY pp.port) AS seqs
  FROM port_packages p JOIN package_ports pp ON pp.package_id = p.id AND pp.node_id = $1
  WHERE p.status = 'active' AND p.date_finish > now()
  GROUP BY p.id`;
const LOAD_EXITS = `
  SELECT id, cc, reg, city, conn FROM agents
  WHERE node_id = $1 AND NOT is_static AND active_exclusive = 0`;

/**
 * Package ports of this node, added to the lease directory: every port listens; a whitelist port
 * takes its package's addresses, a login port RFC 1929 with the package's login and password; each
 * connection resolves to the port's sticky exit (`chooseExit`). Reloaded on `port_package_changed`
 * (access, status, rotation by the link: within the notification's latency) and every `reloadMs`
 * (the node's agents, their geo). A package that leaves (suspended, refunded, access changed)
 * revokes its open connections.
 */
export function withPackagePorts(
  leases: LeaseDirectory,
  options: PackagePortsOptions,
): { directory: LeaseDirectory; packages: PackagePorts } {
  const { db, nodeId } = options;
  const now = options.now ?? Date.now;
  const onError = options.onError ?? (() => {});
  let byPort = new Map<number, { pkg: PackageState; entry: LeaseEntry }>();
  let packages = new Map<string, PackageState>();
  let exits: ExitAgent[] = [];
  const sticky = new Map<number, Sticky>();
  /** Sticky exits of targeted sessions, by package, port and the login's targeting (bounded). */
  const sessions = new Map<string, Sticky>();
  const MAX_SESSIONS = 100_000;
  const revokedListeners = new Set<(id: string) => void>();
  const portListeners = new Set<() => void>();
  let closed = false;

  const candidatesOf = (geo: PackageGeo) => exits.filter((a) => matchesGeo(a, geo)).map((a) => a.id);

  function entryOf(pkg: PackageState, port: number): LeaseEntry {
    return {
      leaseId: pkg.id,
      agentId: '',
      user: pkg.login,
      pwd: pkg.password,
      whitelist: [],
      authPort: port,
      untilMs: pkg.untilMs,
      exclusive: true,
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
      db.query<Record<string, unknown>>(LOAD_PACKAGES, [nodeId]),
      db.query<ExitAgent>(LOAD_EXITS, [nodeId]),
    ]);
    if (closed) return;
    exits = agentRows;
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
      };
      next.set(pkg.id, pkg);
      for (const port of pkg.ports.keys()) nextPorts.set(port, { pkg, entry: entryOf(pkg, port) });
    }
    const revoked = [...packages.values()].filter((old) => next.get(old.id)?.accessKey !== old.accessKey);
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
      async close() {
        closed = true;
        clearInterval(timer);
        clearInterval(sweep);
        await unlisten?.().catch(() => {});
      },
    },
  };
}
