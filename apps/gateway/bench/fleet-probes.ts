/**
 * What `fleet.ts` measures and how: a process's RSS and CPU from /proc, a scrape of the node's
 * `/metrics`, one customer request through a lease (SOCKS5 CONNECT, then HTTP GET), a lease's
 * requests per second, and the loopback HTTP server those requests and the presence probes reach.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SocksClientError, socksConnect } from '../src/protocol/client.ts';

/** Resident set size of a process, KiB (`VmRSS` of /proc/<pid>/status). */
export function rssKiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]);
}

/** A process's RSS once its start-up garbage is gone: the least of ten samples a second apart, after 10 s. */
export async function settledRss(pid: number): Promise<number> {
  await sleep(10_000);
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    least = Math.min(least, rssKiB(pid));
    await sleep(1000);
  }
  return least;
}

/** User plus system CPU a process has used, ms (/proc/<pid>/stat, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms per thread of a process, user and system apart, by thread name (/proc/<pid>/task). */
export function threadCpuMs(pid: number): Map<string, { user: number; sys: number }> {
  const out = new Map<string, { user: number; sys: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      const prev = out.get(name) ?? { user: 0, sys: 0 };
      out.set(name, { user: prev.user + Number(fields[11]) * 10, sys: prev.sys + Number(fields[12]) * 10 });
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

export interface Scrape {
  ok: boolean;
  ms: number;
  /** `gateway_agents_online`, when the scrape answered. */
  agents?: number;
}

/** GET /metrics within `timeoutMs`: answered 200 or not, how long it took, the agents online. */
export function scrapeMetrics(port: number, timeoutMs = 2000): Promise<Scrape> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = (ok: boolean, body = '') => {
      const m = /^gateway_agents_online\{[^}]*\} (\d+)/m.exec(body);
      resolve({ ok, ms: performance.now() - t0, ...(m ? { agents: Number(m[1]) } : {}) });
    };
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => done(res.statusCode === 200, body));
      res.on('error', () => done(false));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => done(false));
  });
}

export interface CustomerTarget {
  socksPort: number;
  user: string;
  pwd: string;
  /** The loopback HTTP server's port. */
  httpPort: number;
}

export interface CustomerResult {
  ok: boolean;
  ms: number;
  /** Where it failed: the SOCKS stage (`connect` = refused by the node), `http`, or `timeout`. */
  failed?: string;
}

/** One customer request: SOCKS5 with the lease's password to the HTTP server, GET /, a 200 answer. */
export async function customerRequest(t: CustomerTarget, timeoutMs = 5000): Promise<CustomerResult> {
  const t0 = performance.now();
  let socket: net.Socket | undefined;
  try {
    socket = await socksConnect({
      proxyHost: '127.0.0.1',
      proxyPort: t.socksPort,
      user: t.user,
      pwd: t.pwd,
      host: '127.0.0.1',
      port: t.httpPort,
      timeoutMs,
    });
    const s = socket;
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      const timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      s.setEncoding('latin1');
      s.on('data', (d: string) => (got += d));
      s.on('end', () => {
        clearTimeout(timer);
        resolve(got);
      });
      s.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      s.end('GET / HTTP/1.1\r\nHost: target\r\nConnection: close\r\n\r\n');
    });
    const ok = answer.startsWith('HTTP/1.1 200');
    return { ok, ms: performance.now() - t0, ...(ok ? {} : { failed: 'http' }) };
  } catch (e) {
    const stage = e instanceof SocksClientError ? `${e.stage}${e.reply ? `-${e.reply}` : ''}` : 'http';
    return { ok: false, ms: performance.now() - t0, failed: stage };
  } finally {
    socket?.destroy();
  }
}

/** Requests per second through one lease: `concurrency` loops of `customerRequest` for `seconds`. */
export async function leaseRate(
  t: CustomerTarget,
  seconds: number,
  concurrency: number,
): Promise<{ rps: number; ok: number; failed: number }> {
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  const loop = async () => {
    while (performance.now() < end) {
      if ((await customerRequest(t)).ok) ok++;
      else failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { rps: ok / ((performance.now() - t0) / 1000), ok, failed };
}

/** The loopback target of the lease's requests and the node's presence probes: 200 "ok", connection closed. */
export async function startTarget(): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    res.end('ok\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
