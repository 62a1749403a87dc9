/**
 * Web app first load: the JavaScript a signed-in customer's first visit to each screen downloads, on
 * the wire (the bytes Chromium received, compressed as the server sends them: the build's brotli files
 * by Accept-Encoding) and decoded. Drives the built app (`npm run build`) in headless Chromium against
 * the mocked backend of the e2e journeys, opens each route, waits for its heading and for the network
 * to go quiet, and sums every script the page fetched. Exits non-zero when any route goes over the
 * budget of 250 kB on the wire.
 * Usage: npm run build && node apps/web/bench/first-load.ts   (LIST=1 prints each route's scripts)
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DESKTOP, PHONE } from '../e2e/support/browser.ts';
import { buildLease } from '../e2e/support/marketMock.ts';
import { type MockApp, startMockApp } from '../e2e/support/mockApp.ts';
import { fakeAccessToken } from '../e2e/support/mockBackend.ts';
import { DIST_DIR } from '../e2e/support/staticServer.ts';

const BUDGET_WIRE_BYTES = 250 * 1000;

interface Visit {
  path: string;
  viewport: typeof DESKTOP;
}

const desktop = (path: string): Visit => ({ path, viewport: DESKTOP });
const phone = (path: string): Visit => ({ path, viewport: PHONE });

/** Every screen a signed-in customer can land on first (a link, a bookmark, a reload). */
const VISITS: Visit[] = process.env.ONLY
  ? [{ path: process.env.ONLY, viewport: process.env.PHONE ? PHONE : DESKTOP }]
  : [
      desktop('/'),
      phone('/shop'),
      phone('/shop/agent-1'),
      phone('/filter'),
      phone('/confirm-purchase?id=agent-1&type=private'),
      desktop('/my'),
      phone('/my'),
      phone('/my/{lease}'),
      desktop('/my/history'),
      phone('/my/history-details/203.0.113.9'),
      desktop('/static'),
      desktop('/payments'),
      phone('/add-funds'),
      desktop('/charges/tx1'),
      desktop('/referral'),
      phone('/change-password'),
      desktop('/faq'),
      desktop('/api'),
      desktop('/download'),
      desktop('/terms'),
      desktop('/privacy'),
      desktop('/bigadmin'),
    ];

async function measure(app: MockApp, visit: Visit) {
  const session = await app.newSession({ viewport: visit.viewport });
  const agent = session.api.market.agents[0]!;
  const lease = buildLease(agent);
  session.api.market.leases.push(lease);
  const path = visit.path.replace('{lease}', lease.id);
  const scripts = new Map<string, { wire: number; decoded: number; gzip: number }>();
  const pending: Promise<void>[] = [];
  session.shell.page.on('response', (res) => {
    const url = new URL(res.url());
    if (url.origin !== app.baseUrl || !url.pathname.endsWith('.js')) return;
    pending.push(
      (async () => {
        const sizes = await res.request().sizes();
        const file = join(DIST_DIR, url.pathname);
        const decoded = statSync(file).size;
        // What a browser without brotli receives: the build's .gz (small files go uncompressed).
        const gzip = existsSync(`${file}.gz`) ? statSync(`${file}.gz`).size : decoded;
        scripts.set(url.pathname, { wire: sizes.responseBodySize, decoded, gzip });
      })(),
    );
  });
  try {
    await session.shell.open(app.baseUrl, path, fakeAccessToken());
    // The routed screen is inside the layout's <main>; then nothing more is fetched for 500 ms.
    await session.shell.page.waitForFunction(() =>
      Boolean(document.querySelector('main')?.textContent?.trim()),
    );
    await session.shell.page.waitForLoadState('networkidle');
    await Promise.all(pending);
  } catch (e) {
    await session.shell.page.screenshot({ path: '/tmp/h7/first-load-failed.png' });
    throw e;
  } finally {
    await session.context.close();
  }
  if (process.env.LIST) {
    for (const [name, size] of [...scripts].sort((a, b) => b[1].wire - a[1].wire)) {
      console.log(`  ${name} ${size.wire} ${size.decoded}`);
    }
  }
  let wire = 0;
  let decoded = 0;
  let gzip = 0;
  for (const s of scripts.values()) {
    wire += s.wire;
    decoded += s.decoded;
    gzip += s.gzip;
  }
  return { path, files: scripts.size, wire, decoded, gzip };
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;
const app = await startMockApp();
const over: string[] = [];
try {
  console.log('| Route | Width | Scripts | JavaScript (decoded) | on the wire (brotli) | gzip instead |');
  console.log('|---|---|---|---|---|---|');
  for (const visit of VISITS) {
    // One retry: on a loaded machine a visit can time out before its screen shows.
    const r = await measure(app, visit).catch(() => measure(app, visit));
    if (r.wire > BUDGET_WIRE_BYTES) over.push(visit.path);
    const wire = r.wire > BUDGET_WIRE_BYTES ? `**${kB(r.wire)} (over)**` : kB(r.wire);
    console.log(
      `| \`${visit.path}\` | ${visit.viewport.width} px | ${r.files} | ${kB(r.decoded)} | ${wire} | ${kB(r.gzip)} |`,
    );
  }
} finally {
  await app.close();
}
if (over.length > 0) {
  console.error(`over the budget of ${kB(BUDGET_WIRE_BYTES)} on the wire: ${over.join(', ')}`);
  process.exit(1);
}
