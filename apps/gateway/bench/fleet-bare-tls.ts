/**
 * The fleet benchmark's peer row (docs/benchmarks.md, "Gateway fleet"): what an idle TLS 1.3
 * connection costs a Node server with nothing of ours on it. A `tls.createServer` with the
 * tunnel's options (`TUNNEL_TLS`, a P-256 certificate, `noDelay`), run with the node's V8 options
 * and open-file limit, holds FLEET_AGENTS connections (default 10,000) from `tls.connect` clients in
 * other processes (10,000 each, FLEET_RATE dials a second in all, default 500); each client sends
 * one 9-byte record at once (a HELLO's worth, so the server has read on every connection).
 * FLEET_PING_S (default 0: none) makes every client send a 9-byte record that often and the server
 * echo it: the keepalive's traffic without the tunnel. FLEET_BARE_MUX=1 runs our tunnel's `Mux`
 * on both ends instead (the gateway's keepalive settings, the client's PING every FLEET_PING_S,
 * default 15, no HELLO, no registry): what the multiplexer and its keepalive add to a bare connection.
 * Measured as `fleet.ts` measures the node: RSS before (least of 10 samples after 10 s) and after
 * all are connected and 10 s idle; CPU over FLEET_IDLE_S (default 60).
 *
 *   usage: node apps/gateway/bench/fleet-bare-tls.ts            (the roles below are its children)
 *          node fleet-bare-tls.ts --server CERT KEY MUX PING_S | --clients PORT CA N RATE PING_S SOURCE_IP MUX
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Mux, TUNNEL_TLS } from '@pm/tunnel';
import { makeSelfSignedCert } from '../src/tunnel/self-signed.ts';
import { cpuMs, rssKiB, settledRss } from './fleet-probes.ts';
import { V8_OPTIONS } from './fleet-setup.ts';

const SELF = fileURLToPath(import.meta.url);
const PER_PROCESS = 10_000;
const RECORD = Buffer.alloc(9);

/** The server: holds every connection, reads what comes, echoes it; prints its count every second. */
function server(certFile: string, keyFile: string, mux: boolean, pingS: number): void {
  let open = 0;
  const srv = tls.createServer(
    { ...TUNNEL_TLS, cert: readFileSync(certFile), key: readFileSync(keyFile), noDelay: true },
    (socket) => {
      open++;
      if (mux) {
        const pingIntervalMs = pingS * 1000;
        new Mux(socket, {
          pingIntervalMs,
          pingOnlyWhenSilent: true,
          onControl: () => {},
          onClose: () => open--,
        });
        return;
      }
      socket.on('data', (d: Buffer) => {
        if (d.length === RECORD.length) socket.write(d);
      });
      socket.on('error', () => {});
      socket.on('close', () => open--);
    },
  );
  srv.listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as { port: number };
    console.log(JSON.stringify({ port }));
    setInterval(() => console.log(JSON.stringify({ open })), 1000);
  });
}

/** `n` clients dialed at `rate` a second; each sends one record, then one every `pingS` seconds. */
function clients(
  port: number,
  caFile: string,
  n: number,
  rate: number,
  pingS: number,
  localAddress: string,
  mux: boolean,
): void {
  const ca = readFileSync(caFile);
  let started = 0;
  const perTick = Math.max(1, Math.round(rate / 50));
  const dial = (): void => {
    // `tls.connect` passes net's connect options on (its types leave `localAddress` out).
    const options: tls.ConnectionOptions & { localAddress: string } = {
      ...TUNNEL_TLS,
      host: '127.0.0.1',
      port,
      ca,
      localAddress,
    };
    const s = tls.connect(options, () => {
      if (mux) new Mux(s, { pingIntervalMs: pingS * 1000, onControl: () => {} });
      else s.write(RECORD);
    });
    // A dial the loaded machine timed out or reset is made again, as an agent would.
    s.on('error', () => {});
    s.once('close', () => setTimeout(dial, 1000));
    if (mux) return;
    s.on('data', () => {});
    if (pingS > 0) setInterval(() => s.write(RECORD), pingS * 1000).unref();
  };
  const t = setInterval(() => {
    for (let i = 0; i < perTick && started < n; i++, started++) dial();
    if (started >= n) clearInterval(t);
  }, 20);
}

function spawnNode(args: string[]): ChildProcess {
  const script = '{ ulimit -n 200000 || ulimit -n "$(ulimit -Hn)"; } 2>/dev/null && exec "$0" "$@"';
  return spawn('bash', ['-c', script, process.execPath, ...V8_OPTIONS, SELF, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function main(): Promise<void> {
  const n = Number(process.env.FLEET_AGENTS ?? 10_000);
  const rate = Number(process.env.FLEET_RATE ?? 500);
  const idleS = Number(process.env.FLEET_IDLE_S ?? 60);
  const mux = process.env.FLEET_BARE_MUX === '1' ? '1' : '0';
  const pingS = Number(process.env.FLEET_PING_S ?? (mux === '1' ? 15 : 0));
  const dir = mkdtempSync(join(os.tmpdir(), 'pm-bare-tls-'));
  const { cert, key } = makeSelfSignedCert(['IP:127.0.0.1']);
  writeFileSync(join(dir, 'c.pem'), cert);
  writeFileSync(join(dir, 'c.key'), key);
  const srv = spawnNode(['--server', join(dir, 'c.pem'), join(dir, 'c.key'), mux, String(pingS)]);
  const kids: ChildProcess[] = [srv];
  try {
    let open = 0;
    const port = await new Promise<number>((resolve) => {
      createInterface({ input: srv.stdout! }).on('line', (line) => {
        const m = JSON.parse(line) as { port?: number; open?: number };
        if (m.port) resolve(m.port);
        if (m.open !== undefined) open = m.open;
      });
    });
    const before = await settledRss(srv.pid!);
    const procs = Math.ceil(n / PER_PROCESS);
    for (let i = 0; i < procs; i++) {
      const k = Math.min(PER_PROCESS, n - i * PER_PROCESS);
      // A source address per process: one address's ephemeral ports (28,232) do not reach 30,000.
      const args = [
        String(port),
        join(dir, 'c.pem'),
        String(k),
        String(rate / procs),
        String(pingS),
        `127.0.0.${i + 2}`,
        mux,
      ];
      kids.push(spawnNode(['--clients', ...args]));
    }
    const t0 = performance.now();
    while (open < n) {
      if (performance.now() - t0 > (n / rate + 600) * 1000) throw new Error(`only ${open} of ${n} connected`);
      await sleep(1000);
    }
    await sleep(10_000);
    const c0 = cpuMs(srv.pid!);
    await sleep(idleS * 1000);
    const idlePct = ((cpuMs(srv.pid!) - c0) / (idleS * 1000)) * 100;
    const after = rssKiB(srv.pid!);
    const kib = (after - before) / n;
    console.log(
      `${mux === '1' ? 'TLS 1.3 + Mux' : 'bare TLS 1.3'} server, ${n} idle connections${pingS ? `, a PING (9 bytes) and its answer every ${pingS} s` : ''}: ` +
        `RSS ${(before / 1024).toFixed(1)} -> ${(after / 1024).toFixed(1)} MiB, ${kib.toFixed(1)} KiB per connection; ` +
        `idle CPU ${idlePct.toFixed(2)} % of a core; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
  } finally {
    for (const k of kids) k.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const [role, ...rest] = process.argv.slice(2);
if (role === '--server') server(rest[0]!, rest[1]!, rest[2] === '1', Number(rest[3]));
else if (role === '--clients')
  clients(
    Number(rest[0]),
    rest[1]!,
    Number(rest[2]),
    Number(rest[3]),
    Number(rest[4]),
    rest[5]!,
    rest[6] === '1',
  );
else await main();
