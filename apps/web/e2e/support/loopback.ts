/** Loopback targets for the requests the journeys send through leased proxies. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page on 127.0.0.1 answering `body` as text: its URL, the requests it saw, and its close. */
export interface LoopbackPage {
  url: string;
  /** "METHOD /path" of each request, oldest first. */
  requests: string[];
  close(): void;
}

export async function startLoopbackPage(body: string): Promise<LoopbackPage> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A URL on 127.0.0.1 where nothing listens (bound, then closed): a request to it is refused. */
export async function refusedLoopbackUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}
