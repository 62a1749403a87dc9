/**
 * Web app first visit (issue 36 item 8): a visitor with nothing cached opens a screen of the real
 * product, signs in on the sign-in host and waits for the screen's first table row. Starts the whole
 * product as the stack journeys do (`startStack` with the demo proxy network, the built web app of
 * `apps/web/dist` or `WEB_DIST_DIR`), gives the demo customer a lease, a port package and their
 * payment records through the APIs, then for each route opens a fresh Chromium context with the HTTP
 * cache disabled (CDP `Network.setCacheDisabled`, as DevTools' "Disable cache") and the service
 * worker blocked, and prints: the JavaScript that crossed the network for the app's origin (the
 * page before the sign-in and the page after it) and for the sign-in host's pages, on the wire; and
 * the time to the first table row, from the sign-in's return to the app (the page's own clock) and
 * from the first request of the visit (the sign-in form filled by Playwright at once). Exits non-zero
 * when a route's app JavaScript goes over 250 kB on the wire or its first row over 1 s after the
 * return. `RUNS` (default 3) visits per route; the medians are printed. `ONLY=/bigadmin` runs one route;
 * `TIMELINE=1` prints each visit's requests after the return (start-end ms by the page's clock).
 * Usage: npm run build && node apps/web/bench/first-visit.ts
 */
import { startStack, TEST_TERMS_VERSION, type TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { IdentityPages } from '../e2e/pages/IdentityPages.ts';
import { DESKTOP, launchBrowser } from '../e2e/support/browser.ts';
import { buyLease, buyPortPackage, passwordToken, readProductUrls } from './product-api.ts';

const BUDGET_WIRE_BYTES = 250 * 1000;
const BUDGET_FIRST_ROW_MS = 1000;
const RUNS = Number(process.env.RUNS ?? 3);
/** A table's first body row, wherever the screen draws its table. */
const FIRST_ROW = 'main table tbody tr';

const ALL_ROUTES: { path: string; staff?: boolean }[] = [
  { path: '/shop' },
  { path: '/my' },
  { path: '/payments' },
  { path: '/ports' },
  { path: '/bigadmin?tab=pricing', staff: true },
];
/** `ONLY=/ports` runs the routes that start so. */
const ROUTES = ALL_ROUTES.filter((r) => r.path.startsWith(process.env.ONLY ?? '/'));

interface Visit {
  appWire: number;
  appBeforeSignIn: number;
  signInHostWire: number;
  appScripts: number;
  afterReturnMs: number;
  wholeVisitMs: number;
}

async function visit(browser: Browser, stack: TestStack, path: string, staff: boolean): Promise<Visit> {
  const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block' });
  try {
    await context.addCookies([
      { name: 'acceptedTermsVersion', value: String(TEST_TERMS_VERSION), url: stack.webUrl },
    ]);
    // Each page records when the first table row appeared, by its own clock (from its navigation).
    await context.addInitScript((selector: string) => {
      const w = window as unknown as { firstRowMs?: number };
      const check = () => {
        if (w.firstRowMs === undefined && document.querySelector(selector)) w.firstRowMs = performance.now();
      };
      new MutationObserver(check).observe(document, { childList: true, subtree: true });
    }, FIRST_ROW);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const app = new URL(stack.webUrl).origin;
    const scripts: { origin: string; beforeSignIn: boolean; bytes: Promise<number> }[] = [];
    let signedIn = false;
    page.on('response', (res) => {
      if (res.request().resourceType() !== 'script') return;
      const origin = new URL(res.url()).origin;
      const bytes = res
        .request()
        .sizes()
        .then((s) => s.responseBodySize);
      scripts.push({ origin, beforeSignIn: !signedIn, bytes });
    });
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && new URL(frame.url()).pathname === '/callback') signedIn = true;
    });
    const who = staff ? stack.demo.admin : stack.demo.customer;
    const started = Date.now();
    await page.goto(new URL(path, stack.webUrl).toString());
    await new IdentityPages(page, stack.issuer).signIn(
      who.email,
      who.password,
      await stack.totpCode(who.email),
    );
    await page.waitForFunction(
      () => (window as unknown as { firstRowMs?: number }).firstRowMs !== undefined,
      {
        timeout: 60_000,
      },
    );
    const wholeVisitMs = Date.now() - started;
    const afterReturnMs = await page.evaluate(() => (window as unknown as { firstRowMs: number }).firstRowMs);
    if (process.env.TIMELINE)
      console.log(
        await page.evaluate(() =>
          performance
            .getEntriesByType('resource')
            .map(
              (e) =>
                `${e.startTime.toFixed(0).padStart(5)}-${e.responseEnd.toFixed(0).padStart(5)} ${e.name.replace(/^https?:\/\/[^/]+/, '')}`,
            )
            .join('\n'),
        ),
      );
    await page.waitForLoadState('networkidle');
    const sized = await Promise.all(scripts.map(async (s) => ({ ...s, bytes: await s.bytes })));
    const sum = (xs: typeof sized) => xs.reduce((n, s) => n + s.bytes, 0);
    const ours = sized.filter((s) => s.origin === app);
    return {
      appWire: sum(ours),
      appBeforeSignIn: sum(ours.filter((s) => s.beforeSignIn)),
      signInHostWire: sum(sized.filter((s) => s.origin !== app)),
      appScripts: ours.length,
      afterReturnMs,
      wholeVisitMs,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

const stack = await startStack({ label: 'bench_first_visit', network: {} });
const browser = await launchBrowser();
const over: string[] = [];
try {
  // What the screens list: a lease, a port package, and their debits on the Payments screen.
  const urls = await readProductUrls(stack.webUrl);
  const token = await passwordToken(urls, stack.demo.customer.email, stack.demo.customer.password);
  if (!(await buyLease(urls, token))) throw new Error('no free agent for the lease');
  await buyPortPackage(urls, token);

  console.log(
    `| Route | App JS on the wire (before sign-in + after) | Scripts | Sign-in host JS | First row after the return | Whole visit |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const route of ROUTES) {
    const runs: Visit[] = [];
    for (let i = 0; i < RUNS; i++) {
      // A visit that never shows a row is reported, and the other routes still run.
      const got = await visit(browser, stack, route.path, route.staff ?? false).catch((e: Error) => e);
      if (got instanceof Error) console.error(`${route.path}: ${got.message.split('\n')[0]}`);
      else runs.push(got);
    }
    if (runs.length === 0) {
      over.push(route.path);
      console.log(`| \`${route.path}\` | no run showed a row | | | | |`);
      continue;
    }
    const pick = (f: (v: Visit) => number) => median(runs.map(f));
    const wire = pick((v) => v.appWire);
    const before = pick((v) => v.appBeforeSignIn);
    const row = pick((v) => v.afterReturnMs);
    if (wire > BUDGET_WIRE_BYTES || row > BUDGET_FIRST_ROW_MS) over.push(route.path);
    const mark = (text: string, bad: boolean) => (bad ? `**${text} (over)**` : text);
    console.log(
      `| \`${route.path}\` | ${mark(kB(wire), wire > BUDGET_WIRE_BYTES)} (${kB(before)} + ${kB(wire - before)}) | ${pick((v) => v.appScripts)} | ${kB(pick((v) => v.signInHostWire))} | ${mark(`${Math.round(row)} ms`, row > BUDGET_FIRST_ROW_MS)} (${runs.map((v) => Math.round(v.afterReturnMs)).join(', ')}) | ${pick((v) => v.wholeVisitMs)} ms |`,
    );
  }
} finally {
  await browser.close();
  await stack.close();
}
if (over.length > 0) {
  console.error(
    `over the budget (${kB(BUDGET_WIRE_BYTES)} on the wire, first row ${BUDGET_FIRST_ROW_MS} ms): ${over.join(', ')}`,
  );
  process.exit(1);
}
