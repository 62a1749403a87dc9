/**
 * Web app first load: the JavaScript a first visit to a screen downloads, in bytes and gzipped
 * (zlib's default level, as a web server sends it). Drives the built app (`npm run build`) in
 * headless Chromium against the mocked backend of the e2e journeys and sums every script the page
 * fetched until the screen showed its data.
 * Usage: npm run build && node apps/web/bench/first-load.ts
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DESKTOP, PHONE } from '../e2e/support/browser.ts';
import { buildLease } from '../e2e/support/marketMock.ts';
import { type MockApp, startMockApp } from '../e2e/support/mockApp.ts';
import { fakeAccessToken } from '../e2e/support/mockBackend.ts';
import { DIST_DIR } from '../e2e/support/staticServer.ts';

const BUDGET_GZIP_BYTES = 250 * 1000;

interface Visit {
  name: string;
  path: string;
  viewport: typeof DESKTOP;
  /** A test id that appears once the screen shows its data. */
  ready: string;
}

const VISITS: Visit[] = [
  { name: 'shop, desktop (/)', path: '/', viewport: DESKTOP, ready: 'agent-row' },
  { name: 'shop, 390 px (/shop)', path: '/shop', viewport: PHONE, ready: 'agent-card' },
  { name: 'My Proxies, desktop (/my)', path: '/my', viewport: DESKTOP, ready: 'lease-row' },
];

async function measure(app: MockApp, visit: Visit) {
  const session = await app.newSession({ viewport: visit.viewport });
  const agent = session.api.market.agents[0]!;
  session.api.market.leases.push(buildLease(agent));
  const scripts = new Set<string>();
  session.shell.page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.origin === app.baseUrl && url.pathname.endsWith('.js')) scripts.add(url.pathname);
  });
  try {
    await session.shell.open(app.baseUrl, visit.path, fakeAccessToken());
    await session.shell.page.getByTestId(visit.ready).first().waitFor();
  } finally {
    await session.context.close();
  }
  if (process.env.LIST) console.log([...scripts].join(' '));
  let raw = 0;
  let gzip = 0;
  for (const path of scripts) {
    const code = readFileSync(join(DIST_DIR, path));
    raw += code.length;
    gzip += gzipSync(code).length;
  }
  return { files: scripts.size, raw, gzip };
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
const app = await startMockApp();
let isOverBudget = false;
try {
  console.log('| Visit | Scripts | JavaScript | gzipped |');
  console.log('|---|---|---|---|');
  for (const visit of VISITS) {
    const r = await measure(app, visit);
    isOverBudget ||= visit.path !== '/my' && r.gzip > BUDGET_GZIP_BYTES;
    console.log(`| ${visit.name} | ${r.files} | ${kB(r.raw)} | ${kB(r.gzip)} |`);
  }
} finally {
  await app.close();
}
if (isOverBudget) {
  console.error(`over the budget of ${kB(BUDGET_GZIP_BYTES)} gzipped for the shop`);
  process.exit(1);
}
