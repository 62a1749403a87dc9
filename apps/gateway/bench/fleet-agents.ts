/**
 * One process of light agents for `npm run bench:fleet` (`fleet.ts` spawns one or two). Each agent
 * is the real agent (`startAgent` of `@pm/agent`: the tunnel of `@pm/tunnel`, TLS 1.3, HELLO with
 * its key, keepalive, reconnect with its own backoff), only many of them in one process and silent.
 * Loopback targets are allowed: the bench's presence probes and its lease's requests go to an HTTP
 * server on 127.0.0.1.
 *
 *   usage: node fleet-agents.ts CONFIG.json   (written by fleet.ts, see `FleetAgentsConfig`)
 *
 * Agents are started at `ratePerS` (a tick every 20 ms), so the node's listen backlog is not
 * flooded with SYNs the way no real fleet arrives at once. Prints one JSON line a second on
 * stdout: `{"started": n, "connected": n, "first": bool, "reasons": {...}}` (`first`: the process's
 * first agent, whose lease the bench uses, is connected; `reasons`: why tunnels ended or dials
 * failed, counted). SIGTERM closes every tunnel and exits.
 */
import { readFileSync } from 'node:fs';
import { type AgentHandle, startAgent } from '@pm/agent';

export interface FleetAgentsConfig {
  host: string;
  port: number;
  /** PEM file of the gateway's (self-signed) certificate, trusted as the CA. */
  caFile: string;
  keys: string[];
  /** New agents started per second. */
  ratePerS: number;
  /**
   * Loopback address the tunnels are dialed from: one per process, since the ephemeral ports of one
   * source address (28,232 here) do not reach 30,000 tunnels to one gateway port.
   */
  localAddress?: string;
}

const TICK_MS = 20;

function main(): void {
  const path = process.argv[2];
  if (!path) {
    console.error('usage: node fleet-agents.ts CONFIG.json');
    process.exit(2);
  }
  const config = JSON.parse(readFileSync(path, 'utf8')) as FleetAgentsConfig;
  const ca = readFileSync(config.caFile);
  const agents: AgentHandle[] = [];
  /** Why tunnels ended or dials failed, counted (the agent's own log messages and reasons). */
  const reasons = new Map<string, number>();
  const log = (msg: string, fields?: Record<string, unknown>) => {
    if (msg === 'agent connected') return;
    const why = `${msg}: ${String(fields?.reason ?? fields?.code ?? fields?.error ?? '')}`;
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  };
  const perTick = Math.max(1, Math.round((config.ratePerS * TICK_MS) / 1000));
  const starter = setInterval(() => {
    for (let i = 0; i < perTick && agents.length < config.keys.length; i++) {
      agents.push(
        startAgent({
          gateway: { host: config.host, port: config.port },
          key: config.keys[agents.length]!,
          tls: { ca },
          localAddress: config.localAddress,
          allowLoopback: true,
          log,
        }),
      );
    }
    if (agents.length >= config.keys.length) clearInterval(starter);
  }, TICK_MS);
  const report = setInterval(() => {
    let connected = 0;
    for (const a of agents) if (a.isConnected()) connected++;
    const first = agents[0]?.isConnected() ?? false;
    const why = Object.fromEntries(reasons);
    process.stdout.write(`${JSON.stringify({ started: agents.length, connected, first, reasons: why })}\n`);
  }, 1000);
  process.once('SIGTERM', () => {
    clearInterval(starter);
    clearInterval(report);
    void Promise.all(agents.map((a) => a.close())).finally(() => process.exit(0));
  });
}

main();
