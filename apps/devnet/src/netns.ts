/**
 * Hosts for tests, built from Linux network namespaces (`ip netns`, root only): each host is a
 * namespace with `lo` and one veth into a bridge in the root namespace, on a private /24 of its own
 * (10.199.N.0/24, N free on this machine). The root namespace holds the bridge's `.1` address, so a
 * test process can serve (or forward to loopback PostgreSQL) what every host reaches. Each host may
 * get its own `/etc/hosts` (`ip netns exec` mounts `/etc/netns/<name>/hosts` over it).
 *
 * Names carry the creating process's id (`pm<pid>-<host>`, bridge `pm<pid>br`): `close()` removes
 * everything, an exit handler does the same if the test dies, and a new run removes what runs whose
 * process is gone left behind.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';

const IP = process.env.IP_COMMAND ?? 'ip';
const PREFIX = /^pm(\d+)(?:-|br$)/;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

export interface HostSpec {
  /** Short name: letters and digits, at most 5 characters (interface names are limited to 15). */
  name: string;
  /** Last octet of the host's address, 2-254. */
  octet: number;
}

export interface NetHost {
  name: string;
  /** The namespace's name for `ip netns exec`. */
  netns: string;
  address: string;
}

export interface HostNet {
  /** The bridge's address in the root namespace (the test process's own address on that network). */
  rootAddress: string;
  hosts: Record<string, NetHost>;
  /** Writes the host's own `/etc/hosts` (lines `address name`), in the order given. */
  setHostsFile(host: string, entries: [address: string, name: string][]): void;
  /** Starts `command` inside the host's namespace. */
  spawnIn(host: string, command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): ChildProcess;
  /** Kills what was started in the hosts, then removes namespaces, bridge and hosts files. */
  close(): Promise<void>;
}

const run = (args: string[]) => execFileSync(IP, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** Whether `ip netns` works here: root and iproute2 present (the tests skip otherwise). */
export function netnsAvailable(): { ok: true } | { ok: false; reason: string } {
  if (process.getuid?.() !== 0) return { ok: false, reason: 'network namespaces need root' };
  try {
    run(['netns', 'list']);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: `ip netns is unavailable: ${(e as Error).message.split('\n')[0]}` };
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes namespaces, bridges and hosts files of earlier runs whose process has exited. */
export function removeLeftovers(): void {
  const stale = (name: string) => {
    const m = PREFIX.exec(name);
    return m !== null && Number(m[1]) !== process.pid && !alive(Number(m[1]));
  };
  for (const line of run(['netns', 'list']).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    if (!stale(name)) continue;
    killNamespace(name);
    rmSync(`/etc/netns/${name}`, { recursive: true, force: true });
  }
  for (const line of run(['-o', 'link', 'show', 'type', 'bridge']).split('\n')) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (name && stale(name)) tryRun(['link', 'del', name]);
  }
}

function tryRun(args: string[]): void {
  try {
    run(args);
  } catch {
    // Already gone.
  }
}

/** Kills every process left in a namespace, then deletes it (its veth goes with it). */
function killNamespace(netns: string): void {
  try {
    for (const pid of run(['netns', 'pids', netns]).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Exited meanwhile.
      }
    }
  } catch {
    // No such namespace.
  }
  tryRun(['netns', 'del', netns]);
}

/**
 * Gives `bridge` the `.1` of a 10.199.N.0/24 no other interface of this machine has an address in,
 * checked after taking it (so two runs starting at once cannot share one); returns `10.199.N`.
 */
function claimSubnet(bridge: string): string {
  const holders = (prefix: string) =>
    run(['-o', '-4', 'addr', 'show', 'to', `${prefix}.0/24`])
      .split('\n')
      .filter(Boolean);
  for (let i = 0; i < 250; i++) {
    const prefix = `10.199.${(process.pid + i) % 250}`;
    if (holders(prefix).length > 0) continue;
    run(['addr', 'add', `${prefix}.1/24`, 'dev', bridge]);
    if (holders(prefix).length === 1) return prefix;
    run(['addr', 'del', `${prefix}.1/24`, 'dev', bridge]);
  }
  throw new Error('no free 10.199.N.0/24 on this machine');
}

/** Builds the hosts; on any failure removes what was built and throws. */
export function createHostNet(specs: HostSpec[]): HostNet {
  removeLeftovers();
  const tag = `pm${process.pid}`;
  const bridge = `${tag}br`;
  let subnet = '';
  const hosts: Record<string, NetHost> = {};
  const children = new Set<ChildProcess>();
  let closed = false;
  const teardown = () => {
    if (closed) return;
    closed = true;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const h of Object.values(hosts)) {
      killNamespace(h.netns);
      rmSync(`/etc/netns/${h.netns}`, { recursive: true, force: true });
    }
    tryRun(['link', 'del', bridge]);
  };
  // A test killed by a signal tears down too, then dies of that signal as it would have.
  const onSignal = (signal: NodeJS.Signals) => {
    teardown();
    process.kill(process.pid, signal);
  };
  const detach = () => {
    process.removeListener('exit', teardown);
    for (const s of SIGNALS) process.removeListener(s, onSignal);
  };
  process.once('exit', teardown);
  for (const s of SIGNALS) process.once(s, onSignal);
  try {
    run(['link', 'add', bridge, 'type', 'bridge']);
    subnet = claimSubnet(bridge);
    run(['link', 'set', bridge, 'up']);
    for (const { name, octet } of specs) {
      if (!/^[a-z0-9]{1,5}$/.test(name))
        throw new Error(`host name "${name}": 1-5 lowercase letters or digits`);
      const netns = `${tag}-${name}`;
      hosts[name] = { name, netns, address: `${subnet}.${octet}` };
      run(['netns', 'add', netns]);
      run(['link', 'add', netns, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', netns]);
      run(['link', 'set', netns, 'master', bridge, 'up']);
      run(['-n', netns, 'link', 'set', 'lo', 'up']);
      run(['-n', netns, 'addr', 'add', `${subnet}.${octet}/24`, 'dev', 'eth0']);
      run(['-n', netns, 'link', 'set', 'eth0', 'up']);
    }
  } catch (e) {
    teardown();
    throw e;
  }
  const hostOf = (name: string) => {
    const h = hosts[name];
    if (!h) throw new Error(`no host "${name}"`);
    return h;
  };
  return {
    rootAddress: `${subnet}.1`,
    hosts,
    setHostsFile(host, entries) {
      const dir = `/etc/netns/${hostOf(host).netns}`;
      mkdirSync(dir, { recursive: true });
      const lines = ['127.0.0.1 localhost', ...entries.map(([a, n]) => `${a} ${n}`)];
      writeFileSync(`${dir}/hosts`, `${lines.join('\n')}\n`);
    },
    spawnIn(host, command, args, env, cwd) {
      const child = spawn(IP, ['netns', 'exec', hostOf(host).netns, command, ...args], {
        env,
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    async close() {
      const exits = [...children].map(
        (c) =>
          new Promise<void>((r) =>
            c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r()),
          ),
      );
      for (const c of children) c.kill('SIGTERM');
      await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 5000))]);
      teardown();
      detach();
    },
  };
}

/**
 * A TCP forwarder listening on `host` (port 0: a free one) to `target`'s host and port: how the
 * hosts reach a service of the root namespace bound to loopback (PostgreSQL), whose configuration
 * a test leaves alone.
 */
export async function forwardTcp(
  host: string,
  target: URL,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
