import { createHmac, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { createEgressGuard } from '@pm/agent';
import { WEBHOOK_DELIVERY_ERRORS, webhookStatusError } from '@pm/contracts';

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
  /** The class of failure (WEBHOOK_DELIVERY_ERRORS, `status <code>`), null for a 2xx answer. */
  error: string | null;
}

/** The lookup's refusal: carries no address, so nothing downstream can repeat one. */
class RefusedAddressError extends Error {
  readonly code = 'EWEBHOOK_REFUSED';
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME', 'ENODATA']);
/** OpenSSL's verification codes and Node's TLS errors, for a failure before the handshake was seen to start. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

/**
 * The class of a failed try, from the error and how far the connection got (`inHandshake`: TCP
 * connected, TLS not yet through). The system's error text is never kept: it may name the address
 * a name resolved to.
 */
export function classifyDeliveryError(
  e: NodeJS.ErrnoException,
  o: { timedOut: boolean; inHandshake: boolean },
): string {
  if (e instanceof RefusedAddressError) return WEBHOOK_DELIVERY_ERRORS.refused;
  if (o.timedOut || e.code === 'ETIMEDOUT') return WEBHOOK_DELIVERY_ERRORS.timeout;
  if (e.code && DNS_CODES.has(e.code)) return WEBHOOK_DELIVERY_ERRORS.dns;
  if (o.inHandshake || (e.code && TLS_CODE.test(e.code))) return WEBHOOK_DELIVERY_ERRORS.tls;
  return WEBHOOK_DELIVERY_ERRORS.connection;
}

/**
 * POSTs the body with the headers; the address is checked after resolution, on the connection
 * itself (no DNS rebinding past the check), and an address in the URL before connecting. One
 * deadline of `timeoutMs` (default 10 s) covers resolving, connecting, TLS and the answer's status
 * line; the answer's body is never read. The result names only the class of a failure.
 */
export function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  o: { allowPrivate: boolean; timeoutMs?: number },
): Promise<PostResult> {
  const url = new URL(rawUrl);
  const isTls = url.protocol === 'https:';
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // Node connects to an address in the URL without calling `lookup`: it is judged here instead.
  if (!o.allowPrivate && isIP(literal) && isPrivateAddress(literal)) {
    return Promise.resolve({ statusCode: null, error: WEBHOOK_DELIVERY_ERRORS.refused });
  }
  const lookup = (
    hostname: string,
    options: object,
    cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) =>
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, []);
      const list = addresses as LookupAddress[];
      if (!o.allowPrivate && list.some((a) => isPrivateAddress(a.address)))
        return cb(new RefusedAddressError('refused'), []);
      cb(null, list);
    });
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let inHandshake = false;
    const settle = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(r);
    };
    const req = (isTls ? https : http).request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        lookup,
      },
      (res) => {
        const code = res.statusCode ?? 0;
        const ok = code >= 200 && code < 300;
        settle({ statusCode: code, error: ok ? null : webhookStatusError(code) });
        res.destroy();
      },
    );
    const deadline = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, o.timeoutMs ?? 10_000);
    req.on('socket', (socket) => {
      if (!isTls) return;
      socket.once('connect', () => {
        inHandshake = true;
      });
      socket.once('secureConnect', () => {
        inHandshake = false;
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      settle({ statusCode: null, error: classifyDeliveryError(e, { timedOut, inHandshake }) }),
    );
    req.end(body);
  });
}
