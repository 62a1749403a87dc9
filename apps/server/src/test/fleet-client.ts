/**
 * The outage tests' client of test/fleet.ts: API calls with a deadline (a hang is a failure, not a
 * wait), curl from the customers' host through a lease's SOCKS port counting the bytes it moved,
 * and polling until a condition holds.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { STAFF_PERMISSIONS } from '@pm/contracts';
import { waitFor } from '@pm/testkit';
import type { Fleet, FleetAgent } from './fleet.ts';

const run = promisify(execFile);

export interface ApiAnswer {
  status: number;
  body: string;
  retryAfter: string | null;
  ms: number;
}

/** `fetch` to `base` as `userId`; a request unanswered after `deadlineMs` answers status 0 ('hang'). */
export async function callApi(
  fleet: Fleet,
  base: string,
  o: {
    method: string;
    path: string;
    userId: string;
    body?: unknown;
    staff?: boolean;
    deadlineMs?: number;
    headers?: Record<string, string>;
  },
): Promise<ApiAnswer> {
  const token = await fleet.issuer.sign(o.userId, {
    permissions: o.staff ? [...STAFF_PERMISSIONS] : [],
    email: `${o.userId}@example.test`,
  });
  const started = Date.now();
  try {
    const res = await fetch(`${base}${o.path}`, {
      method: o.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...o.headers,
        ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(o.deadlineMs ?? 15_000),
    });
    const body = await res.text();
    return { status: res.status, body, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
  } catch (e) {
    const hang = (e as Error).name === 'TimeoutError';
    return { status: hang ? 0 : -1, body: String(e), retryAfter: null, ms: Date.now() - started };
  }
}

/** Bytes one transfer moved, as the customer's curl counted them: sent (request) and received. */
export interface Moved {
  ok: boolean;
  up: number;
  down: number;
  out: string;
}

/** curl from the customers' host; whether it succeeded and what it printed (or its error). */
export async function curlFromCustomers(
  fleet: Fleet,
  args: string[],
  timeoutS = 2,
): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run('ip', [
      'netns',
      'exec',
      fleet.net.hosts.cust!.netns,
      'curl',
      '-sS',
      '--max-time',
      String(timeoutS),
      ...args,
    ]);
    return { ok: true, out: stdout.trim() };
  } catch (e) {
    return { ok: false, out: String((e as { stderr?: string }).stderr ?? e) };
  }
}

/** curl from the customers' host through `user:pwd@ip:port` to `url`, counting the bytes both ways. */
export async function curlThrough(fleet: Fleet, proxy: string, url: string, timeoutS = 5): Promise<Moved> {
  const sizes = '%{http_code} %{size_request} %{size_header} %{size_download}';
  const moved = await curlFromCustomers(
    fleet,
    ['-o', '/dev/null', '-w', sizes, '--socks5', proxy, url],
    timeoutS,
  );
  if (!moved.ok) return { ok: false, up: 0, down: 0, out: moved.out };
  const [code, req, header, body] = moved.out.split(' ').map(Number);
  return { ok: code === 200, up: req!, down: header! + body!, out: moved.out };
}

/**
 * `waitFor` (`@pm/testkit`) that measures: resolves with the time `check` took to hold; a check
 * that throws counts as not yet (a host being restarted refuses connections meanwhile).
 */
export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  pollMs = 100,
): Promise<number> {
  const start = Date.now();
  await waitFor(() => check().catch(() => false), { timeoutMs, what, intervalMs: pollMs });
  return Date.now() - start;
}

/** Every agent of the fleet online (on either node). */
export async function agentsOnline(
  query: (sql: string, params: unknown[]) => Promise<{ n: number }[]>,
  agents: FleetAgent[],
): Promise<boolean> {
  const [row] = await query('SELECT count(*)::int AS n FROM agents WHERE id = ANY($1) AND online', [
    agents.map((a) => a.id),
  ]);
  return row?.n === agents.length;
}
