/**
 * Serves the built web app (apps/web/dist) the way production does: files by path, `index.html` for every
 * other route, each as the build's precompressed `.br` or `.gz` when the browser accepts it, and
 * `/environments.json` from the given configuration. Loopback only (port 0 unless given).
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

/** The built app; `WEB_DIST_DIR` points at another build (e.g. one made with `vite build --outDir`). */
export const DIST_DIR = process.env.WEB_DIST_DIR ?? join(import.meta.dirname, '../../dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
};

export interface StaticServer {
  port: number;
  /** The same server under the `localhost` and `127.0.0.1` host names. */
  url(host?: 'localhost' | '127.0.0.1'): string;
  /** Replaces what `/environments.json` answers (an object, or a status code to fail with). */
  setEnvironments(value: unknown | number): void;
  close(): Promise<void>;
}

export async function startStaticServer(environments: unknown, port = 0): Promise<StaticServer> {
  let envValue: unknown = environments;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (path === '/environments.json') {
        if (typeof envValue === 'number') {
          res.writeHead(envValue).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(envValue));
        return;
      }
      const file = normalize(join(DIST_DIR, path));
      const isFile = file.startsWith(DIST_DIR) && (await stat(file).catch(() => null))?.isFile();
      const target = isFile ? file : join(DIST_DIR, 'index.html');
      const accepted = String(req.headers['accept-encoding'] ?? '');
      let encoding: 'br' | 'gzip' | undefined;
      let body: Buffer | undefined;
      for (const [name, ext] of [
        ['br', '.br'],
        ['gzip', '.gz'],
      ] as const) {
        if (body || !new RegExp(`\\b${name}\\b`).test(accepted)) continue;
        body = await readFile(target + ext).catch(() => undefined);
        if (body) encoding = name;
      }
      body ??= await readFile(target);
      res.writeHead(200, {
        'content-type': TYPES[extname(target)] ?? 'application/octet-stream',
        'content-security-policy': "script-src 'self'; object-src 'none'; base-uri 'none'",
        vary: 'accept-encoding',
        ...(encoding ? { 'content-encoding': encoding } : {}),
      });
      res.end(body);
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: (host = 'localhost') => `http://${host}:${bound}`,
    setEnvironments(value) {
      envValue = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
