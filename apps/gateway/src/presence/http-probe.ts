import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AgentDialer } from '../policy/types.ts';

export interface ProbeResult {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

export interface SpeedResult {
  ok: boolean;
  /** Bits per second of the body download; 0 when it failed. */
  bps: number;
  bytes: number;
  error?: string;
}

/** A plain-HTTP target (`http://host:port/path`) split for a raw request through an agent. */
export interface HttpTarget {
  host: string;
  port: number;
  path: string;
}

export function parseHttpTarget(url: string): HttpTarget {
  const u = new URL(url);
  if (u.protocol !== 'http:') throw new Error(`probe and speed targets are plain http: ${url}`);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  return { host, port: Number(u.port || 80), path: `${u.pathname}${u.search}` };
}

function request(target: HttpTarget, extraHeaders = ''): string {
  const hostHeader = target.host.includes(':') ? `[${target.host}]` : target.host;
  return `GET ${target.path} HTTP/1.1\r\nHost: ${hostHeader}:${target.port}\r\nUser-Agent: pm-probe\r\n${extraHeaders}Connection: close\r\n\r\n`;
}

async function dialWithTimeout(
  dialer: AgentDialer,
  agentId: string,
  target: HttpTarget,
  deadline: number,
): Promise<Duplex> {
  let timer: NodeJS.Timeout | undefined;
  const dialing = dialer.dial(agentId, target.host, target.port);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([dialing, timeout]);
  } catch (e) {
    // A stream that arrives after we gave up must not leak.
    dialing.then((s) => s.destroy()).catch(() => {});
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/** How an exchange reads its answer: a result once the bytes so far tell it, or undefined to read on. */
interface AnswerReader<T> {
  /** Each chunk as it comes; throws to fail the exchange. */
  onData(chunk: Buffer): T | undefined;
  /** The answer ended (or the stream closed) before `onData` gave a result; throws to fail. */
  onEnd(): T;
}

/**
 * Sends a GET of `target` through the agent and reads the answer with `reader`, all before
 * `deadline`; the stream is destroyed afterwards. `sentAt` is when the request was written.
 */
async function getThroughAgent<T>(
  dialer: AgentDialer,
  agentId: string,
  target: HttpTarget,
  deadline: number,
  reader: AnswerReader<T>,
  extraHeaders = '',
): Promise<{ result: T; sentAt: number }> {
  const stream = await dialWithTimeout(dialer, agentId, target, deadline);
  try {
    const sentAt = Date.now();
    const result = await new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (read: () => T | undefined) => {
        if (settled) return;
        try {
          const r = read();
          if (r === undefined) return;
          settled = true;
          resolve(r);
        } catch (e) {
          settled = true;
          reject(e);
        }
        clearTimeout(timer);
      };
      const timer = setTimeout(
        () =>
          settle(() => {
            throw new Error('timeout');
          }),
        Math.max(0, deadline - Date.now()),
      );
      stream.on('data', (chunk: Buffer) => settle(() => reader.onData(chunk)));
      stream.on('error', (e) =>
        settle(() => {
          throw e;
        }),
      );
      stream.on('end', () => settle(() => reader.onEnd()));
      stream.on('close', () => settle(() => reader.onEnd()));
      stream.write(request(target, extraHeaders));
    });
    return { result, sentAt };
  } finally {
    stream.destroy();
  }
}

const failure = (e: unknown) => (e as Error).message.slice(0, 200);

/** One probe: an HTTP GET through the agent; ok when a 2xx/3xx status line arrives in time. */
export async function probeThroughAgent(
  dialer: AgentDialer,
  agentId: string,
  target: HttpTarget,
  timeoutMs: number,
): Promise<ProbeResult> {
  const started = Date.now();
  let head = '';
  try {
    const { result: statusLine } = await getThroughAgent(dialer, agentId, target, started + timeoutMs, {
      onData(chunk) {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n');
        if (end >= 0) return head.slice(0, end);
        return head.length > 1024 ? head : undefined;
      },
      onEnd() {
        throw new Error('closed before a status line');
      },
    });
    const ok = /^HTTP\/1\.[01] [23]\d\d\b/.test(statusLine);
    return ok
      ? { ok, latencyMs: Date.now() - started }
      : { ok, latencyMs: Date.now() - started, error: statusLine.slice(0, 100) };
  } catch (e) {
    return { ok: false, latencyMs: Date.now() - started, error: failure(e) };
  }
}

/**
 * Speed test: downloads `target` through the agent (at most `maxBytes` of body) and returns the body's
 * bits per second, timed from the request to the last byte.
 */
export async function downloadThroughAgent(
  dialer: AgentDialer,
  agentId: string,
  target: HttpTarget,
  options: { timeoutMs: number; maxBytes: number },
): Promise<SpeedResult> {
  let head = Buffer.alloc(0);
  let body = -1;
  let expected = Number.POSITIVE_INFINITY;
  const reader: AnswerReader<number> = {
    onData(chunk) {
      if (body < 0) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > 16_384) throw new Error('response head too large');
          return undefined;
        }
        const headText = head.subarray(0, end).toString('latin1');
        if (!/^HTTP\/1\.[01] 2\d\d\b/.test(headText)) {
          throw new Error(headText.split('\r\n')[0]?.slice(0, 100) ?? 'bad response');
        }
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1];
        if (length) expected = Number(length);
        body = head.length - end - 4;
      } else {
        body += chunk.length;
      }
      return body >= Math.min(expected, options.maxBytes) ? body : undefined;
    },
    onEnd() {
      if (body < 0) throw new Error('no response');
      return body;
    },
  };
  try {
    const deadline = Date.now() + options.timeoutMs;
    const { result: bytes, sentAt } = await getThroughAgent(dialer, agentId, target, deadline, reader);
    const seconds = Math.max(Date.now() - sentAt, 1) / 1000;
    return { ok: bytes > 0, bps: Math.round((bytes * 8) / seconds), bytes };
  } catch (e) {
    return { ok: false, bps: 0, bytes: 0, error: failure(e) };
  }
}

/** What an IP-echo request through an agent saw: the exit address the echo service reported. */
export interface EchoResult extends ProbeResult {
  /** The address in the answer's body; undefined when the probe failed or the body held none. */
  ip?: string;
}

const MAX_ECHO_BYTES = 4096;

/** The address an IP-echo body names: plain text (`203.0.113.7\n`) or JSON with an `ip` field. */
export function parseEchoBody(body: string): string | undefined {
  const text = body.trim();
  let candidate = text;
  if (text.startsWith('{')) {
    try {
      const ip = (JSON.parse(text) as { ip?: unknown }).ip;
      candidate = typeof ip === 'string' ? ip : '';
    } catch {
      return undefined;
    }
  }
  return isIP(candidate) ? candidate : undefined;
}

/**
 * A probe that also learns the agent's exit address: an HTTP GET of an IP-echo URL through the
 * agent, ok when a 2xx answer names an address. The request carries `X-Probe-Agent: <agent id>`;
 * public echo services ignore it, the devnet's echo uses it to answer the agent's synthetic exit.
 */
export async function echoThroughAgent(
  dialer: AgentDialer,
  agentId: string,
  target: HttpTarget,
  timeoutMs: number,
): Promise<EchoResult> {
  const started = Date.now();
  const chunks: Buffer[] = [];
  let size = 0;
  const reader: AnswerReader<Buffer> = {
    onData(chunk) {
      chunks.push(chunk);
      size += chunk.length;
      return size > MAX_ECHO_BYTES ? Buffer.concat(chunks) : undefined;
    },
    onEnd: () => Buffer.concat(chunks),
  };
  try {
    const { result: answer } = await getThroughAgent(
      dialer,
      agentId,
      target,
      started + timeoutMs,
      reader,
      `X-Probe-Agent: ${agentId}\r\n`,
    );
    const latencyMs = Date.now() - started;
    const text = answer.toString('latin1');
    const headEnd = text.indexOf('\r\n\r\n');
    const statusLine = text.slice(0, Math.max(0, text.indexOf('\r\n')));
    if (headEnd < 0 || !/^HTTP\/1\.[01] 2\d\d\b/.test(statusLine)) {
      return { ok: false, latencyMs, error: (statusLine || 'no answer').slice(0, 100) };
    }
    const ip = parseEchoBody(decodeBody(text.slice(0, headEnd), text.slice(headEnd + 4)));
    return ip ? { ok: true, latencyMs, ip } : { ok: false, latencyMs, error: 'the echo named no address' };
  } catch (e) {
    return { ok: false, latencyMs: Date.now() - started, error: failure(e) };
  }
}

/** The body of a small answer, undoing chunked transfer coding (echo services use either). */
function decodeBody(head: string, body: string): string {
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) return body;
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = lineEnd < 0 ? Number.NaN : Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
