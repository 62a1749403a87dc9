/**
 * Runs the deployment guide's own commands (docs/deploying.md, "A deployment, step by step") on
 * hosts made of network namespaces (`@pm/devnet/netns`), so the guide cannot rot. Every fenced block
 * whose info string is `sh deploy-check host=<host> [service]` runs in order with `bash -euo
 * pipefail` in that host: a `service` block is a process left running (it must not exit), any other
 * block must exit 0 within two minutes. The hosts share one directory that stands for the checkout
 * (symbolic links to this one), and get the guide's shell variables for an empty database, reached
 * through a forwarder on the hosts' network (the test, scripts/deploy-guide-check.int.test.ts, makes one).
 *
 * Usage (root, `ip netns`): DATABASE_URL=postgres://…/an_empty_db node scripts/deploy-guide-check.ts
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostNet, forwardTcp, type HostNet } from '@pm/devnet/netns';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const GUIDE = join(ROOT, 'docs/deploying.md');
const BLOCK_TIMEOUT_MS = 120_000;

const HOSTS = [
  { name: 'admin', octet: 2 },
  { name: 'id', octet: 3 },
  { name: 'api', octet: 4 },
  { name: 'work', octet: 5 },
  { name: 'gw', octet: 16 },
  { name: 'agent', octet: 17 },
];

export interface GuideBlock {
  host: string;
  service: boolean;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The guide's blocks marked `deploy-check`, in order; throws on a marker without a known host. */
export function readGuideBlocks(markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const fence = /^```sh deploy-check([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) {
    const words = m[1]!.trim().split(/\s+/);
    const host = words.find((w) => w.startsWith('host='))?.slice(5) ?? '';
    const line = markdown.slice(0, m.index).split('\n').length;
    if (!HOSTS.some((h) => h.name === host)) {
      throw new Error(
        `docs/deploying.md:${line}: deploy-check needs host=${HOSTS.map((h) => h.name).join('|')}`,
      );
    }
    blocks.push({ host, service: words.includes('service'), code: m[2]!, line });
  }
  return blocks;
}

/** Output kept per process, the last lines of each for a failure's message. */
function captureOutput(child: ChildProcess, label: string, out: string[]): void {
  const keep = (chunk: Buffer) => {
    for (const l of chunk.toString().split('\n').filter(Boolean)) out.push(`[${label}] ${l}`);
    if (out.length > 400) out.splice(0, out.length - 400);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
}

/** Runs one foreground block; rejects when it fails, times out, or a service exits meanwhile. */
function runBlock(
  net: HostNet,
  block: GuideBlock,
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: string[],
  services: ChildProcess[],
) {
  const child = net.spawnIn(block.host, 'bash', ['-euo', 'pipefail', '-c', block.code], env, cwd);
  captureOutput(child, `${block.host}:${block.line}`, out);
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    const died = services.find((s) => s.exitCode !== null || s.signalCode !== null);
    if (died) return reject(new Error(`a service exited (${died.exitCode ?? died.signalCode})`));
    const onServiceExit = () => {
      child.kill('SIGKILL');
      reject(new Error('a service exited while the block ran'));
    };
    for (const s of services) s.once('exit', onServiceExit);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      for (const s of services) s.off('exit', onServiceExit);
      if (code === 0) resolve();
      else reject(new Error(`exited ${code ?? signal}`));
    });
  });
}

/** The shared "checkout": links to this one, so relative paths and env files work as in the guide. */
function makeCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pm-guide-'));
  for (const entry of ['apps', 'packages', 'node_modules', 'package.json'])
    symlinkSync(join(ROOT, entry), join(dir, entry));
  return dir;
}

/**
 * Runs the guide's blocks (or those of `markdown`) on fresh hosts and a fresh database; resolves
 * with how long it took, rejects naming the failing block with every process's last output.
 */
export async function checkDeployGuide(o: {
  /** An empty database (the guide's processes migrate it). */
  databaseUrl: string;
  markdown?: string;
  log?: (line: string) => void;
}): Promise<number> {
  const log = o.log ?? ((line: string) => console.log(line));
  const blocks = readGuideBlocks(o.markdown ?? readFileSync(GUIDE, 'utf8'));
  if (blocks.length === 0) throw new Error('docs/deploying.md has no deploy-check blocks');
  const started = Date.now();
  const net = createHostNet(HOSTS);
  const cwd = makeCheckout();
  const out: string[] = [];
  const services: ChildProcess[] = [];
  const forwarder = await forwardTcp(net.rootAddress, new URL(o.databaseUrl)).catch(async (e) => {
    await net.close();
    throw e;
  });
  try {
    const addr = (h: string) => net.hosts[h]!.address;
    for (const h of HOSTS) {
      net.setHostsFile(h.name, [
        [addr('id'), 'id.pm.test'],
        [addr('gw'), 'gw.pm.test'],
      ]);
    }
    const dbUrl = new URL(o.databaseUrl);
    dbUrl.host = `${net.rootAddress}:${forwarder.port}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      DB_URL: dbUrl.toString(),
      ID_URL: 'http://id.pm.test:7302',
      APP_URL: 'http://app.pm.test',
      API_AUDIENCE: 'https://api.pm.test',
      SMTP_URL: 'smtp://mail.pm.test:25',
      GW_NAME: 'gw.pm.test',
      GW_IP: addr('gw'),
      ID_HOST: addr('id'),
      API_HOST: addr('api'),
      WORKER_HOST: addr('work'),
    };
    for (const block of blocks) {
      log(`docs/deploying.md:${block.line} on ${block.host}${block.service ? ' (service)' : ''}`);
      if (block.service) {
        const child = net.spawnIn(block.host, 'bash', ['-euo', 'pipefail', '-c', block.code], env, cwd);
        captureOutput(child, `${block.host}:${block.line}`, out);
        services.push(child);
        continue;
      }
      try {
        await runBlock(net, block, env, cwd, out, services);
      } catch (e) {
        throw new Error(
          `docs/deploying.md:${block.line} on ${block.host}: ${(e as Error).message}\n${out.join('\n')}`,
        );
      }
    }
    return Date.now() - started;
  } finally {
    await net.close();
    await forwarder.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error('DATABASE_URL must name an empty database');
    process.exit(2);
  }
  checkDeployGuide({ databaseUrl }).then(
    (ms) => console.log(`the guide's commands ran on namespaced hosts in ${(ms / 1000).toFixed(1)} s`),
    (e: Error) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
