import { createHmac, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { createEgressGuard } from '@pm/agent';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, as Stripe signs. */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** The receiver's check (documented in apps/server/README.md): signature and age within `toleranceS`. */
export function verifyWebhook(
  secret: string,
  body: string,
  header: string,
  nowS: number,
  toleranceS: number,
): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || !parts.v1) return false;
  const expected = Buffer.from(signWebhook(secret, body, t).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The agents' egress guard, with nothing opened: the IANA special-purpose ranges (private, loopback,
 * link-local, CGNAT, benchmarking, documentation, multicast...), IPv4 inside IPv6 (mapped, NAT64,
 * 6to4) judged as IPv4, and this host's own interface addresses. One table for both products of a
 * customer's choosing that the platform connects to: an agent's destination and a webhook endpoint.
 */
const publicOnly = createEgressGuard({ refusePorts: [] });

/** Whether a webhook may not reach `ip`: anything but a public internet address of another host. */
export function isPrivateAddress(ip: string): boolean {
  return publicOnly.refusal(ip) !== null;
}

/** Why a URL cannot be a webhook endpoint, or null: https only (http too when `allowPrivate`), no credentials. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    return 'must be an https:// URL';
  if (url.username || url.password) return 'must not contain credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || (isIP(host) && isPrivateAddress(host)))) {
    return 'must be a public address';
  }
  return null;
}

export interface PostResult {
  statusCode: number | null;
  error: string | null;
}

/**
 * POSTs the body with the headers; the address is checked after resolution, on the connection
 * itself (no DNS rebinding past the check). 10 s timeout; the answer's body is not read past 1 KB.
 */
export function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  o: { allowPrivate: boolean; timeoutMs?: number },
): Promise<PostResult> {
  const url = new URL(rawUrl);
  const lib = url.protocol === 'https:' ? https : http;
  const lookup = (
    hostname: string,
    options: object,
    cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) =>
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad && !o.allowPrivate) return cb(new Error(`refused private address ${bad.address}`), []);
      cb(null, list);
    });
  return new Promise((resolve) => {
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        lookup,
        timeout: o.timeoutMs ?? 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ statusCode: res.statusCode ?? null, error: null }));
        res.on('error', (e) => resolve({ statusCode: res.statusCode ?? null, error: e.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => resolve({ statusCode: null, error: e.message }));
    req.end(body);
  });
}
