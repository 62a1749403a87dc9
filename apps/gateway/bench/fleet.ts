/**
 * `npm run bench:fleet`: one gateway node holding a fleet of agents over TLS (docs/benchmarks.md,
 * "Gateway fleet"). A fresh database `pm_bench_fleet` (BENCH_PG_URL, default
 * postgres://postgres@127.0.0.1:5432) with FLEET_AGENTS agents (default 10,000) on node `fleet-1`
 * and one private lease on the first; the node as production runs it (`main.ts`, TLS 1.3, the V8
 * options of docs/gateway.md, pino at `info`, the geo database off: every agent is on 127.0.0.1);
 * the agents as real `startAgent` instances in one process (two past 2,000 agents, one per 10,000 past 20,000), dialed at
 * FLEET_RATE agents a second in all (default 200, what the node took on the 2-core VM). Presence
 * probes and the lease's requests reach an HTTP server on loopback. Then:
 *   1. RSS of the node before the agents and after all are connected and idle: KiB per agent;
 *   2. idle CPU over FLEET_IDLE_S seconds (default 60: one presence probe round of every agent,
 *      which a 30 s window would catch or miss by chance), as % of one core, and its quietest 30 s;
 *   3. one lease's requests per second (SOCKS5 CONNECT + HTTP GET, 8 at once, 10 s);
 *   4. kill -9 of the node and a restart: seconds until every agent is back (its `/metrics`), with
 *      `/metrics` (5 s allowed) and a customer request through the lease (5 s) every second,
 *      failures counted.
 * Prints the figures and one Markdown row.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDb } from '@pm/db';
import { makeSelfSignedCert } from '../src/tunnel/self-signed.ts';
import {
  type CustomerResult,
  type CustomerTarget,
  cpuMs,
  customerRequest,
  leaseRate,
  rssKiB,
  type Scrape,
  scrapeMetrics,
  settledRss,
  startTarget,
  threadCpuMs,
} from './fleet-probes.ts';
import { profileNode } from './fleet-profile.ts';
import {
  type AgentProcess,
  choosePorts,
  type GatewayProcess,
  NODE_ID,
  prepareDatabase,
  startAgentProcess,
  startGatewayProcess,
} from './fleet-setup.ts';

const N = Number(process.env.FLEET_AGENTS ?? 10_000);
const RATE = Number(process.env.FLEET_RATE ?? 200);
const IDLE_S = Number(process.env.FLEET_IDLE_S ?? 60);
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB_NAME = 'pm_bench_fleet';
const RATE_SECONDS = 10;
const RATE_CONCURRENCY = 8;
/** Give up on the reconnection after this long (the goal is 60 s). */
const RECONNECT_LIMIT_S = 180;
const GOALS = { kibPerAgent: 20, idleCpuPct: 5, reconnectS: 60 };

const log = (msg: string) => console.error(`[fleet ${new Date().toISOString().slice(11, 19)}] ${msg}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Polls the node's `/metrics` every second until `n` agents are online; seconds it took. */
async function waitAgents(port: number, n: number, limitS: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const s = await scrapeMetrics(port);
    if (s.agents === n) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > limitS * 1000)
      throw new Error(`only ${s.agents ?? '?'} of ${n} agents online`);
    await sleep(1000);
  }
}

/** Waits until the registry's writer marked all `n` agents online in PostgreSQL; seconds it took. */
async function waitPresence(url: string, n: number, limitS: number): Promise<number> {
  const db = await createDb({ databaseUrl: url, maxConnections: 1 });
  const t0 = performance.now();
  try {
    for (;;) {
      const [row] = await db.query<{ n: string }>('SELECT count(*) AS n FROM agents WHERE online');
      if (Number(row?.n) === n) return (performance.now() - t0) / 1000;
      if (performance.now() - t0 > limitS * 1000)
        throw new Error(`only ${row?.n} agents online in the database`);
      await sleep(1000);
    }
  } finally {
    await db.close();
  }
}

/** CPU of the node over FLEET_IDLE_S seconds, sampled every second: the average and the quietest 30 s, % of a core. */
async function idleCpu(pid: number): Promise<{ idleCpuPct: number; quietestPct: number }> {
  const threads0 = threadCpuMs(pid);
  const samples = [cpuMs(pid)];
  for (let i = 0; i < IDLE_S; i++) {
    await sleep(1000);
    samples.push(cpuMs(pid));
  }
  const byThread = [...threadCpuMs(pid)].map(([name, t]) => {
    const t0 = threads0.get(name) ?? { user: 0, sys: 0 };
    const pct = (ms: number) => ((ms / (IDLE_S * 1000)) * 100).toFixed(2);
    return `${name} ${pct(t.user - t0.user)} user + ${pct(t.sys - t0.sys)} sys`;
  });
  log(`idle CPU by thread (% of a core): ${byThread.join('; ')}`);
  const span = Math.min(30, IDLE_S);
  let quietest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + span < samples.length; i++)
    quietest = Math.min(quietest, samples[i + span]! - samples[i]!);
  return {
    idleCpuPct: ((samples.at(-1)! - samples[0]!) / (IDLE_S * 1000)) * 100,
    quietestPct: (quietest / (span * 1000)) * 100,
  };
}

interface Restart {
  /** Seconds from the kill until the new node logged "gateway started". */
  downS: number;
  /** Seconds from the kill until every agent was online again. */
  reconnectS: number;
  /** Seconds from the kill until the lease's agent was connected again (its process's report). */
  leaseAgentS: number;
  scrapes: number;
  scrapeFails: number;
  scrapeMaxMs: number;
  customers: number;
  /** Customer requests that failed while the node was up and the lease's agent connected. */
  customerFails: number;
  /** Failed while the lease's agent was still reconnecting (the agent's absence, not the node's refusal). */
  customerWaitingAgent: number;
  cpuS: number;
  gateway: GatewayProcess;
}

/** kill -9, restart, and every second a scrape and a customer request until all agents are back. */
async function restart(
  gw: GatewayProcess,
  env: Record<string, string>,
  metricsPort: number,
  target: Omit<CustomerTarget, 'socksPort'>,
  leaseProc: AgentProcess,
): Promise<Restart> {
  gw.child.kill('SIGKILL');
  const t0 = performance.now();
  const since = () => (performance.now() - t0) / 1000;
  const next = startGatewayProcess(env);
  let socksPort: number | undefined;
  let downS = Number.NaN;
  void next.started.then((p) => {
    socksPort = p;
    downS = since();
  });
  const r = {
    scrapes: 0,
    scrapeFails: 0,
    scrapeMaxMs: 0,
    customers: 0,
    customerFails: 0,
    customerWaitingAgent: 0,
  };
  let leaseAgentS = Number.NaN;
  let reconnectS = Number.NaN;
  while (Number.isNaN(reconnectS) && since() < RECONNECT_LIMIT_S) {
    const tick = performance.now();
    if (socksPort !== undefined) {
      // A report received within a second of the kill may predate the agent's noticing it.
      const agentBack = leaseProc.last.first && leaseProc.lastAt > t0 + 1000;
      const [scrape, customer] = await Promise.all([
        scrapeMetrics(metricsPort, 5000),
        customerRequest({ ...target, socksPort }, 5000),
      ]);
      if (r.scrapes % 5 === 0)
        log(
          `  ${since().toFixed(0)} s: ${scrape.agents ?? '?'} agents online, node CPU ${(cpuMs(next.pid) / 1000).toFixed(1)} s, ` +
            `lease agent ${leaseProc.last.first ? 'up' : 'down'}`,
        );
      tally(r, scrape, customer, agentBack);
      if (agentBack && Number.isNaN(leaseAgentS)) leaseAgentS = since();
      if (scrape.agents === N) reconnectS = since();
    }
    await sleep(Math.max(0, 1000 - (performance.now() - tick)));
  }
  const cpuS = cpuMs(next.pid) / 1000;
  return { downS, reconnectS, leaseAgentS, ...r, cpuS, gateway: next };
}

function tally(
  r: Omit<Restart, 'downS' | 'reconnectS' | 'leaseAgentS' | 'cpuS' | 'gateway'>,
  scrape: Scrape,
  customer: CustomerResult,
  agentBack: boolean,
): void {
  r.scrapes++;
  if (!scrape.ok) r.scrapeFails++;
  r.scrapeMaxMs = Math.max(r.scrapeMaxMs, scrape.ms);
  r.customers++;
  if (customer.ok) return;
  if (agentBack) {
    r.customerFails++;
    log(`customer request failed at ${customer.failed} after ${customer.ms.toFixed(0)} ms`);
  } else r.customerWaitingAgent++;
}

const ratio = (value: number, goal: number) => `${(value / goal).toFixed(2)}× goal`;

async function main(): Promise<void> {
  log(`${N} agents, ${RATE}/s; load average ${load()}`);
  const ports = await choosePorts();
  const target = await startTarget();
  const seeded = await prepareDatabase(PG_URL, DB_NAME, N, ports.base);
  log(`database ${DB_NAME} seeded`);
  const dir = mkdtempSync(join(os.tmpdir(), 'pm-fleet-'));
  const { cert, key } = makeSelfSignedCert(['IP:127.0.0.1']);
  writeFileSync(join(dir, 'gw.pem'), cert);
  writeFileSync(join(dir, 'gw.key'), key);
  const probeUrl = `http://127.0.0.1:${target.port}/probe`;
  const env = {
    DATABASE_URL: seeded.url,
    GATEWAY_TLS_CERT: join(dir, 'gw.pem'),
    GATEWAY_TLS_KEY: join(dir, 'gw.key'),
    GATEWAY_NODE_ID: NODE_ID,
    GATEWAY_PUBLIC_IP: '192.0.2.10',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_TUNNEL_PORT: String(ports.tunnel),
    GATEWAY_SOCKS_BASE_PORT: String(ports.base),
    GATEWAY_METRICS_PORT: String(ports.metrics),
    GATEWAY_GEO: 'off',
    GATEWAY_PROBE_URL: probeUrl,
    GATEWAY_ECHO_URL: probeUrl,
    GATEWAY_SPEED_URL: probeUrl,
    LOG_LEVEL: 'info',
  };
  const profile = process.env.FLEET_PROFILE;
  let gw = startGatewayProcess(env, profile ? ports.inspect : undefined);
  const procs: AgentProcess[] = [];
  try {
    const socksPort = await gw.started;
    const rssBefore = await settledRss(gw.pid);
    log(`node up, RSS ${(rssBefore / 1024).toFixed(1)} MiB; starting agents`);
    // At most 10,000 agents a process: each holds a descriptor per agent, and one process's
    // handshakes would lag behind the node's after a restart.
    const nProcs = Math.max(N > 2000 ? 2 : 1, Math.ceil(N / 10_000));
    const per = Math.ceil(N / nProcs);
    for (let i = 0; i < nProcs; i++) {
      procs.push(
        startAgentProcess(dir, i, {
          host: '127.0.0.1',
          port: ports.tunnel,
          caFile: env.GATEWAY_TLS_CERT,
          keys: seeded.keys.slice(i * per, (i + 1) * per),
          ratePerS: RATE / nProcs,
          localAddress: `127.0.0.${i + 2}`,
        }),
      );
    }
    const connectS = await waitAgents(ports.metrics, N, N / RATE + 300);
    const presenceS = connectS + (await waitPresence(seeded.url, N, 300));
    log(`all ${N} connected in ${connectS.toFixed(1)} s, in the database after ${presenceS.toFixed(1)} s`);
    await sleep(10_000);
    const [{ idleCpuPct, quietestPct }] = await Promise.all([
      idleCpu(gw.pid),
      profile ? profileNode(ports.inspect, IDLE_S, profile) : undefined,
    ]);
    const rssAfter = rssKiB(gw.pid);
    const kibPerAgent = (rssAfter - rssBefore) / N;
    log(
      `RSS ${(rssAfter / 1024).toFixed(1)} MiB: ${kibPerAgent.toFixed(1)} KiB/agent; ` +
        `idle CPU ${idleCpuPct.toFixed(2)} % (quietest 30 s ${quietestPct.toFixed(2)} %)`,
    );
    const customer = { user: seeded.lease.user, pwd: seeded.lease.pwd, httpPort: target.port };
    const rate = await leaseRate({ ...customer, socksPort }, RATE_SECONDS, RATE_CONCURRENCY);
    log(`lease: ${rate.rps.toFixed(0)} req/s (${rate.failed} failed)`);
    const loadBefore = load();
    const agentsCpu0 = procs.map((p) => cpuMs(p.child.pid!));
    const r = await restart(gw, env, ports.metrics, customer, procs[0]!);
    const agentsCpuS = procs.map((p, i) => ((cpuMs(p.child.pid!) - agentsCpu0[i]!) / 1000).toFixed(1));
    log(`the agent processes' CPU meanwhile: ${agentsCpuS.join(' + ')} s`);
    log(
      `why agents' tunnels ended or dials failed: ${procs.map((p) => JSON.stringify(p.last.reasons)).join(' ')}`,
    );
    gw = r.gateway;
    log(
      `restart: node up after ${r.downS.toFixed(1)} s, all back after ${r.reconnectS.toFixed(1)} s ` +
        `(lease agent ${r.leaseAgentS.toFixed(1)} s), node CPU ${r.cpuS.toFixed(1)} s; ` +
        `metrics ${r.scrapeFails}/${r.scrapes} failed (max ${r.scrapeMaxMs.toFixed(0)} ms), ` +
        `customers ${r.customerFails}/${r.customers} failed (+${r.customerWaitingAgent} before the lease agent was back)`,
    );
    const agentRss = procs.map((p) => (rssKiB(p.child.pid!) / 1024).toFixed(0)).join(' + ');
    console.log(
      `agent processes RSS: ${agentRss} MiB; load average before the restart ${loadBefore}, now ${load()}`,
    );
    console.log(
      '| date | agents | KiB per idle agent | idle CPU (% of a core) | all reconnected | metrics refused | customer requests failed | one lease req/s (c8) | load avg (1/5/15) |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(
      `| ${new Date().toISOString().slice(0, 10)} | ${N} | ${kibPerAgent.toFixed(1)} (${ratio(kibPerAgent, GOALS.kibPerAgent)}) ` +
        `| ${idleCpuPct.toFixed(2)} (${ratio(idleCpuPct, GOALS.idleCpuPct)}; quietest 30 s ${quietestPct.toFixed(2)}) ` +
        `| ${r.reconnectS.toFixed(1)} s (${ratio(r.reconnectS, GOALS.reconnectS)}; node down ${r.downS.toFixed(1)} s) ` +
        `| ${r.scrapeFails} of ${r.scrapes} (slowest ${r.scrapeMaxMs.toFixed(0)} ms) ` +
        `| ${r.customerFails} of ${r.customers - r.customerWaitingAgent} ` +
        `| ${rate.rps.toFixed(0)} | ${loadBefore} |`,
    );
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    gw.child.kill('SIGTERM');
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
