/**
 * Devnet webhook inbox, beside the mail catcher: an HTTP receiver on loopback that keeps every
 * delivery POSTed to `/hooks/<name>` in memory and a page listing each one with its event, body and
 * whether its signature verifies. It checks `PM-Signature` as an integrator would (the API page's
 * and apps/server/README.md's recipe, written again here rather than imported from the server),
 * with the endpoint's signing secret: `npm start` gives it the demo customer's (inbox `demo`), and
 * the page takes any other inbox's secret from a form, since only its customer saw it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml, page } from './mail.ts';

/** What the page says of a delivery's signature. */
export type SignatureCheck = 'verified' | 'does not verify' | 'no secret';

export interface InboxDelivery {
  id: number;
  /** The `<name>` of `/hooks/<name>` it was posted to. */
  inbox: string;
  receivedAt: string;
  /** The body's `type`, else the `PM-Event-Type` header. */
  type: string;
  /** The raw body, as signed. */
  body: string;
  signatureHeader: string;
  signature: SignatureCheck;
}

export interface WebhookInbox {
  /** The origin deliveries go to (`http://127.0.0.1:7308`): what the market API must allow. */
  origin: string;
  /** The page people open (the public host name). */
  webUrl: string;
  /** The URL to register as a webhook endpoint for inbox `name`. */
  hookUrl(name: string): string;
  /** Checks inbox `name`'s deliveries, past and future, with this signing secret. */
  setSecret(name: string, secret: string): void;
  list(): InboxDelivery[];
  /** Resolves with the newest delivery matching `predicate` that is or arrives within `timeoutMs`. */
  waitFor(predicate: (d: InboxDelivery) => boolean, timeoutMs?: number): Promise<InboxDelivery>;
  close(): Promise<void>;
}

export interface WebhookInboxConfig {
  host: string;
  port: number;
  /** Host name in `webUrl` (default `host`). */
  publicHost?: string | undefined;
  /** At most this many deliveries are kept (oldest dropped). */
  maxDeliveries?: number;
}

/** A receiver refuses a signature older than this (WEBHOOK_TOLERANCE_S on the product's side). */
const TOLERANCE_S = 300;
const MAX_BODY_BYTES = 256 * 1024;
const INBOX_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The integrator's check: split `t=<unix s>,v1=<hex>`, refuse an age past 300 s (at `atS`, when
 * it arrived), compare HMAC-SHA256(secret, `${t}.${rawBody}`) in constant time.
 */
export function checkSignature(secret: string, rawBody: string, header: string, atS: number): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(atS - t) > TOLERANCE_S || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const mac = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return timingSafeEqual(mac, Buffer.from(v1, 'hex'));
}

function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

const prettyJson = (raw: string) => {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
};

const BADGE: Record<SignatureCheck, [string, string]> = {
  verified: ['ok', 'Signature verified'],
  'does not verify': ['bad', 'Signature does not verify'],
  'no secret': ['unknown', 'Signature not checked: no secret for this inbox'],
};

export async function startWebhookInbox(config: WebhookInboxConfig): Promise<WebhookInbox> {
  const received: Omit<InboxDelivery, 'signature'>[] = [];
  const secrets = new Map<string, string>();
  const waiters = new Set<() => void>();
  const max = config.maxDeliveries ?? 500;
  let nextId = 1;

  const judged = (d: Omit<InboxDelivery, 'signature'>): InboxDelivery => {
    const secret = secrets.get(d.inbox);
    const atS = Math.floor(Date.parse(d.receivedAt) / 1000);
    const signature: SignatureCheck = !secret
      ? 'no secret'
      : checkSignature(secret, d.body, d.signatureHeader, atS)
        ? 'verified'
        : 'does not verify';
    return { ...d, signature };
  };
  const list = () => received.map(judged);

  async function receive(req: IncomingMessage, inbox: string): Promise<number> {
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === null) return 413;
    let type = String(req.headers['pm-event-type'] ?? '');
    try {
      const parsed = JSON.parse(body) as { type?: unknown };
      if (typeof parsed.type === 'string') type = parsed.type;
    } catch {}
    received.unshift({
      id: nextId++,
      inbox,
      receivedAt: new Date().toISOString(),
      type: type || '(no type)',
      body,
      signatureHeader: String(req.headers['pm-signature'] ?? ''),
    });
    if (received.length > max) received.length = max;
    for (const w of waiters) w();
    return 200;
  }

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, {
        'content-type': type,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ...extra,
      });
      res.end(body);
    };
    const hook = /^\/hooks\/([^/]+)$/.exec(url.pathname);
    if (hook?.[1] && INBOX_NAME.test(hook[1])) {
      if (req.method !== 'POST') return send(405, 'text/plain', 'POST a delivery here', { allow: 'POST' });
      void receive(req, hook[1]).then((status) => send(status, 'application/json', '{"received":true}'));
      return;
    }
    const form = /^\/inboxes\/([^/]+)\/secret$/.exec(url.pathname);
    if (form?.[1] && INBOX_NAME.test(form[1]) && req.method === 'POST') {
      const name = form[1];
      void readBody(req, 4096).then((raw) => {
        const secret = new URLSearchParams(raw ?? '').get('secret')?.trim() ?? '';
        if (secret.length < 1 || secret.length > 200)
          return send(400, 'text/plain', 'secret: 1-200 characters');
        secrets.set(name, secret);
        send(303, 'text/plain', 'saved', { location: `/#inbox-${name}` });
      });
      return;
    }
    if (url.pathname === '/api/deliveries') return send(200, 'application/json', JSON.stringify(list()));
    if (url.pathname === '/') return send(200, 'text/html; charset=utf-8', renderPage());
    send(404, 'text/html; charset=utf-8', page('Not found', '<p>Not found.</p>'));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const bracket = (h: string) => (h.includes(':') ? `[${h}]` : h);
  // The API connects here: a wildcard listener is reached on loopback.
  const connectHost = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  const origin = `http://${bracket(connectHost)}:${port}`;
  const hookUrl = (name: string) => `${origin}/hooks/${name}`;

  function renderPage(): string {
    const deliveries = list();
    const names = [...new Set([...secrets.keys(), ...deliveries.map((d) => d.inbox)])].sort();
    const inboxes = names
      .map((name) => {
        const count = deliveries.filter((d) => d.inbox === name).length;
        const state = secrets.has(name)
          ? '<span class="badge ok">secret known</span>'
          : '<span class="badge unknown">no secret yet</span>';
        return `<div class="inbox" id="inbox-${name}"><p><code>${escapeHtml(hookUrl(name))}</code> · ${count} ${count === 1 ? 'delivery' : 'deliveries'} ${state}</p><form method="post" action="/inboxes/${name}/secret"><label>Signing secret of this endpoint <input name="secret" autocomplete="off" placeholder="whsec_…" required></label><button type="submit">Check signatures</button></form></div>`;
      })
      .join('');
    const items = deliveries
      .map((d) => {
        const [cls, label] = BADGE[d.signature];
        return `<article data-type="${escapeHtml(d.type)}"><header><strong>${escapeHtml(d.type)}</strong><span class="badge ${cls}">${label}</span></header><p class="muted">to <code>${escapeHtml(d.inbox)}</code> · ${escapeHtml(d.receivedAt.replace('T', ' ').slice(0, 19))} UTC</p><pre>${escapeHtml(prettyJson(d.body))}</pre></article>`;
      })
      .join('');
    return page(
      'Devnet webhooks',
      `<style>${STYLE}</style><h1>Devnet webhook inbox</h1><p class="muted">Every webhook the product delivers to this inbox lands here. Register <code>${escapeHtml(hookUrl('NAME'))}</code> (any NAME) on the API page: in this local setup webhooks may reach this address and no other private one. The demo customer's endpoint <code>${escapeHtml(hookUrl('demo'))}</code> was made at first start and its signatures are checked with its secret; for an endpoint you add, paste the secret it showed you.</p>${inboxes ? `<h2>Inboxes</h2>${inboxes}` : ''}<h2>Deliveries</h2>${items || '<p>No deliveries yet.</p>'}`,
    );
  }

  return {
    origin,
    webUrl: `http://${bracket(config.publicHost ?? config.host)}:${port}`,
    hookUrl,
    setSecret: (name, secret) => {
      secrets.set(name, secret);
    },
    list,
    waitFor(predicate, timeoutMs = 10_000) {
      const match = () => list().find(predicate);
      const found = match();
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const d = match();
          if (!d) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(d);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching webhook delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

const STYLE =
  'h2{font-size:16px;margin-top:28px}article,.inbox{background:#fff;border:1px solid #e3e6eb;border-radius:6px;padding:12px 14px;margin:10px 0}article header{display:flex;flex-wrap:wrap;gap:8px;align-items:center;justify-content:space-between}article p{margin:4px 0 8px}.inbox p{margin:0 0 10px}pre{margin:0;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:13px;background:#f5f6f8;border:0;padding:10px}code{word-break:break-all}.badge{font-size:13px;padding:2px 8px;border-radius:10px;white-space:nowrap}.ok{background:#e3f4e8;color:#1b6b34}.bad{background:#fde6e6;color:#a12020}.unknown{background:#eceef2;color:#4b5263}form{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end}label{display:flex;flex-direction:column;gap:4px;font-size:13px;flex:1 1 240px}input{font:inherit;padding:6px 8px;border:1px solid #c5cad3;border-radius:4px}button{font:inherit;padding:7px 14px;border:0;border-radius:4px;background:#2f5bd3;color:#fff}';
