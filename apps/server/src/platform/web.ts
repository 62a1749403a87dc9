import { extname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { TEnvironment } from '@pm/contracts';
import Fastify, { type FastifyInstance } from 'fastify';

export interface WebAppOptions {
  /** Directory of the built SPA (index.html, assets/; `.br`/`.gz` beside each file the build compressed). */
  root: string;
  environments: TEnvironment[];
  logLevel?: string | undefined;
  /** The operator's Terms and Privacy copy (Markdown, TERMS_FILE and PRIVACY_FILE); unset: the app's template. */
  legal?: LegalCopy | undefined;
}

/** What `GET /legal.json` answers: each page's Markdown, or null where the web app shows its template. */
export interface LegalCopy {
  terms?: string | undefined;
  privacy?: string | undefined;
}

const ASSET_CACHE = 'public, max-age=31536000, immutable';

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** CSP for the SPA: scripts only from itself; it may call the API, ports API and issuer origins. */
export function contentSecurityPolicy(environments: TEnvironment[]): string {
  const connect = new Set<string>(["'self'"]);
  for (const env of environments) {
    for (const url of [env.apiUrl, env.portsApiUrl, env.issuer]) {
      const origin = originOf(url);
      if (origin) connect.add(origin);
    }
  }
  return [
    "default-src 'self'",
    "script-src 'self'",
    // MUI (emotion) injects <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** Folders of the build that hold only files: the hashed assets and the downloads (the add-on's zip). */
const FILE_FOLDERS = ['/assets/', '/downloads/'];

/**
 * Whether a path that matched no file names a file after all (so a 404, not the app): anything
 * under `/assets/` or `/downloads/` (a missing add-on zip must not be saved as the app's index page),
 * and a top-level name with an extension (`/robots.txt`, `/sw.js`). Deeper paths are client routes
 * whatever their last segment holds: `/my/history-details/1.2.3.4` is an IP.
 */
export function looksLikeFile(path: string): boolean {
  if (FILE_FOLDERS.some((folder) => path.startsWith(folder))) return true;
  return path.lastIndexOf('/') === 0 && extname(path) !== '';
}

/**
 * The web listener: serves the built SPA from `root` with `index.html` for client routes
 * (`/my/history`, `/my/history-details/1.2.3.4`), long-lived caching for the hashed `/assets/*`, security headers,
 * `GET /environments.json` = `{ environments }` and `GET /legal.json` = `{ terms, privacy }`. Files are sent
 * precompressed (the build's `.br`, else `.gz`, by Accept-Encoding; `Vary: Accept-Encoding`), so nothing
 * is compressed per request.
 */
export async function buildWebApp(options: WebAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ forceCloseConnections: true, logger: { level: options.logLevel ?? 'info' } });
  const csp = contentSecurityPolicy(options.environments);
  const environmentsJson = JSON.stringify({ environments: options.environments });
  const legalJson = JSON.stringify({
    terms: options.legal?.terms ?? null,
    privacy: options.legal?.privacy ?? null,
  });

  app.addHook('onSend', async (req, reply) => {
    reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'strict-origin-when-cross-origin');
    reply.header('x-frame-options', 'DENY');
    reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    const isAsset = req.url.startsWith('/assets/') && reply.statusCode === 200;
    reply.header('cache-control', isAsset ? ASSET_CACHE : 'no-cache');
  });

  app.get('/environments.json', async (_req, reply) => {
    reply.type('application/json');
    return environmentsJson;
  });

  app.get('/legal.json', async (_req, reply) => {
    reply.type('application/json');
    return legalJson;
  });

  await app.register(fastifyStatic, {
    root: options.root,
    cacheControl: false,
    index: 'index.html',
    // The build writes `name.br` and `name.gz` beside each text file (apps/web/vite.config.ts).
    preCompressed: true,
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const isClientRoute = (req.method === 'GET' || req.method === 'HEAD') && !looksLikeFile(path);
    if (isClientRoute) return reply.type('text/html; charset=utf-8').sendFile('index.html');
    return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
  });
  return app;
}
