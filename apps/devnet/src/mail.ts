/**
 * Devnet mail catcher: an SMTP server on loopback that keeps every message in memory, and a small
 * web page listing them, so password-reset and verification links can be followed without real mail.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  id: number;
  receivedAt: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

export interface MailCatcherConfig {
  host: string;
  smtpPort: number;
  httpPort: number;
  /** At most this many messages are kept (oldest dropped). */
  maxMessages?: number;
}

export interface MailCatcher {
  smtpUrl: string;
  webUrl: string;
  list(): CaughtMail[];
  /** Resolves with the first message to `to` (newest first) that arrives within `timeoutMs`. */
  waitFor(to: string, predicate?: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

/** Text for HTML (the mail catcher's and the webhook inbox's pages). */
export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Plain text with URLs turned into links, the way a mail client shows it. */
const linkify = (text: string) =>
  escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (u) => `<a href="${u}">${u}</a>`);

/** A devnet page: the mail catcher's look, also the webhook inbox's. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>body{font:15px system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2330}main{max-width:860px;margin:0 auto;padding:24px}h1{font-size:20px}table{width:100%;border-collapse:collapse;background:#fff}td,th{padding:8px 10px;border-bottom:1px solid #e3e6eb;text-align:left}pre{white-space:pre-wrap;background:#fff;padding:16px;border:1px solid #e3e6eb}.muted{color:#6b7385}</style></head><body><main>${body}</main></body></html>`;
}

export async function startMailCatcher(config: MailCatcherConfig): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  const waiters = new Set<() => void>();
  let nextId = 1;
  const max = config.maxMessages ?? 500;

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    banner: 'devnet mail catcher',
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const to = [parsed.to ?? []]
            .flat()
            .flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
          messages.unshift({
            id: nextId++,
            receivedAt: new Date().toISOString(),
            from: parsed.from?.text ?? '',
            to,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
          });
          if (messages.length > max) messages.length = max;
          for (const w of waiters) w();
          callback();
        })
        .catch((e: Error) => callback(e));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(config.smtpPort, config.host, () => resolve());
  });
  smtp.on('error', () => {});
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'x-content-type-options': 'nosniff',
        'content-security-policy':
          "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; img-src data:",
      });
      res.end(body);
    };
    if (url.pathname === '/api/messages') return send(200, 'application/json', JSON.stringify(messages));
    const m = /^\/messages\/(\d+)$/.exec(url.pathname);
    if (m) {
      const mail = messages.find((x) => x.id === Number(m[1]));
      if (!mail) return send(404, 'text/html; charset=utf-8', page('Not found', '<p>No such message.</p>'));
      return send(
        200,
        'text/html; charset=utf-8',
        page(
          mail.subject,
          `<p><a href="/">&larr; All messages</a></p><h1>${escapeHtml(mail.subject)}</h1><p class="muted">From ${escapeHtml(mail.from)} to ${escapeHtml(mail.to.join(', '))}, ${escapeHtml(mail.receivedAt)}</p><pre>${linkify(mail.text)}</pre>`,
        ),
      );
    }
    if (url.pathname === '/') {
      const rows = messages
        .map(
          (x) =>
            `<tr><td><a href="/messages/${x.id}">${escapeHtml(x.subject || '(no subject)')}</a></td><td>${escapeHtml(x.to.join(', '))}</td><td class="muted">${escapeHtml(x.receivedAt.replace('T', ' ').slice(0, 19))}</td></tr>`,
        )
        .join('');
      return send(
        200,
        'text/html; charset=utf-8',
        page(
          'Devnet mail',
          `<h1>Devnet mail catcher</h1><p class="muted">Every e-mail the product sends in this local setup lands here.</p>${messages.length ? `<table><tr><th>Subject</th><th>To</th><th>Received</th></tr>${rows}</table>` : '<p>No messages yet.</p>'}`,
        ),
      );
    }
    send(404, 'text/html; charset=utf-8', page('Not found', '<p>Not found.</p>'));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.httpPort, config.host, () => resolve());
  });
  const httpPort = (http.address() as AddressInfo).port;
  const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;

  return {
    smtpUrl: `smtp://${hostForUrl}:${smtpPort}`,
    webUrl: `http://${hostForUrl}:${httpPort}`,
    list: () => [...messages],
    waitFor(to, predicate = () => true, timeoutMs = 10_000) {
      const match = () => messages.find((x) => x.to.includes(to.toLowerCase()) && predicate(x));
      const found = match();
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = match();
          if (!m) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      http.closeAllConnections();
      await Promise.all([
        new Promise<void>((r) => http.close(() => r())),
        new Promise<void>((r) => smtp.close(() => r())),
      ]);
    },
  };
}
