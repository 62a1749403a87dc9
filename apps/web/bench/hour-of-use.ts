/**
 * Memory of `npm start` over an hour of use (issue 36 item 9). Starts the product exactly as
 * `npm start` does (the package.json script's node flags, scripts/start.ts) on a fresh DATA_DIR and
 * its own ports (7400-7411, gateway 3080-7080, package ports 8100-8599), then each minute of
 * `MINUTES` (default 60; e.g. MINUTES=10 for a shorter run): the demo customer's page views in
 * headless Chromium (/shop, /my, /payments, /ports, each a full page load and its sign-in round trip
 * to the sign-in host), a lease purchase, and every 5 minutes a top-up paid on the devnet chain, every
 * 15 a port package, through the APIs as a script would. It samples the product process's resident
 * set (/proc/PID/status VmRSS) every 5 s and prints each minute's figure, the peak (VmHWM) of the
 * first start, and the max and final resident set of the use. `KEEP_DATA=1` keeps the DATA_DIR.
 * Exits non-zero when the max goes over 400 MiB.
 * Usage: node apps/web/bench/hour-of-use.ts   (the web app is built by the start if stale)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { IdentityPages } from '../e2e/pages/IdentityPages.ts';
import { DESKTOP, launchBrowser } from '../e2e/support/browser.ts';
import { npmStartArgs } from '../e2e/support/npmStart.ts';
import { buyLease, buyPortPackage, call, passwordToken, readProductUrls } from './product-api.ts';

const MINUTES = Number(process.env.MINUTES ?? 60);
const BUDGET_MIB = 400;
const SAMPLE_MS = 5000;
const root = resolve(import.meta.dirname, '../../..');
const MiB = 2 ** 20;

const PORTS = {
  WEB_PORT: 7400,
  API_PORT: 7401,
  IDENTITY_PORT: 7402,
  MAIL_PORT: 7403,
  MAIL_SMTP_PORT: 7404,
  CHAIN_PORT: 7405,
  TICKER_PORT: 7406,
  PORTS_PORT: 7407,
  WEBHOOK_INBOX_PORT: 7408,
  GATEWAY_TUNNEL_PORT: 7410,
  GATEWAY_METRICS_PORT: 7411,
  GATEWAY_SOCKS_BASE_PORT: 1000,
  AUTH_PORT_MIN: 8000,
  AUTH_PORT_MAX: 8099,
  PACKAGE_PORT_MIN: 8100,
  PACKAGE_PORT_MAX: 8599,
  HTTP_PORT_OFFSET: 1000,
};

/** VmRSS and VmHWM of a process, in bytes. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** Starts `npm start`'s process (the script's node flags) and resolves at its banner. */
async function startProduct(dataDir: string): Promise<{ child: ChildProcess; banner: string; ms: number }> {
  const args = npmStartArgs(root);
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...Object.fromEntries(Object.entries(PORTS).map(([k, v]) => [k, String(v)])),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const banner = await new Promise<string>((ok, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('Ctrl+C stops.)');
      if (out.includes('ProxyMarket is running') && end > 0) ok(out);
    });
    child.once('exit', (code) => fail(new Error(`npm start exited (${code}):\n${out}`)));
  });
  return { child, banner, ms: Date.now() - started };
}

/** One round of page views: each screen loaded afresh and shown (its heading or first row). */
async function pageViews(page: Page, webUrl: string): Promise<void> {
  for (const path of ['/shop', '/my', '/payments', '/ports']) {
    await page.goto(new URL(path, webUrl).toString());
    await page.waitForFunction(
      () => Boolean(document.querySelector('main')?.textContent?.trim()),
      undefined,
      {
        timeout: 60_000,
      },
    );
    await page.waitForLoadState('networkidle');
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'pm-hour-'));
const { child, banner, ms } = await startProduct(dataDir);
const pid = child.pid ?? 0;
const atBanner = memoryOf(pid);
const said = /(\d+) MiB resident now/.exec(banner)?.[1];
console.log(`banner: ${/Memory:\s+(.*)/.exec(banner)?.[1] ?? '(no memory line)'}`);
console.log(
  `started in ${(ms / 1000).toFixed(1)} s; banner says ${said} MiB; at the banner: ${Math.round(atBanner.rss / MiB)} MiB resident, first-start peak (VmHWM) ${Math.round(atBanner.hwm / MiB)} MiB`,
);
let max = 0;
const sampler = setInterval(() => {
  max = Math.max(max, memoryOf(pid).rss);
}, SAMPLE_MS);
let browser: Browser | undefined;
let failed = false;
try {
  const secrets = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as {
    demo: { customer: { email: string; password: string } };
  };
  const customer = secrets.demo.customer;
  const devnet = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as { chainUrl: string };
  const urls = await readProductUrls(`http://localhost:${PORTS.WEB_PORT}`);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: DESKTOP });
  await context.addCookies([{ name: 'acceptedTermsVersion', value: '1', url: urls.webUrl }]);
  const page = await context.newPage();
  await page.goto(new URL('/shop', urls.webUrl).toString());
  await new IdentityPages(page, urls.issuer).signIn(customer.email, customer.password);
  await page.waitForURL((u) => u.href.startsWith(urls.webUrl));

  console.log(
    '| minute | resident MiB | max so far MiB | leases | top-ups | packages | page rounds not finished |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const done = { leases: 0, topUps: 0, packages: 0, slowViews: 0 };
  for (let minute = 1; minute <= MINUTES; minute++) {
    const until = Date.now() + 60_000;
    const token = await passwordToken(urls, customer.email, customer.password);
    // On a loaded machine a screen can be slow: counted, and the hour goes on.
    await pageViews(page, urls.webUrl).catch((e: Error) => {
      done.slowViews++;
      console.error(`minute ${minute}: ${e.message.split('\n')[0]}`);
    });
    if (await buyLease(urls, token).catch(() => null)) done.leases++;
    if (minute % 5 === 1) {
      const charge = await call<{ address: string; amount: string }>(
        urls.apiUrl,
        token,
        'POST',
        '/crypto/create',
        {
          // $100 every five minutes: more than a minute's lease and a quarter's package cost.
          amount: 10_000,
          type: 'ltc',
        },
      );
      await call(devnet.chainUrl, token, 'POST', '/_sim/pay', {
        chain: 'ltc',
        address: charge.address,
        amount: charge.amount,
      });
      done.topUps++;
    }
    if (minute % 15 === 1) {
      await buyPortPackage(urls, token).then(
        () => done.packages++,
        (e: Error) => console.error(`minute ${minute}: no port package: ${e.message}`),
      );
    }
    const now = memoryOf(pid).rss;
    max = Math.max(max, now);
    console.log(
      `| ${minute} | ${Math.round(now / MiB)} | ${Math.round(max / MiB)} | ${done.leases} | ${done.topUps} | ${done.packages} | ${done.slowViews} |`,
    );
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
  }
  const final = memoryOf(pid).rss;
  max = Math.max(max, final);
  console.log(
    `MINUTES=${MINUTES}: max ${Math.round(max / MiB)} MiB, final ${Math.round(final / MiB)} MiB resident (budget ${BUDGET_MIB}); first start: ${Math.round(atBanner.rss / MiB)} MiB at the banner, peak ${Math.round(atBanner.hwm / MiB)} MiB`,
  );
  failed = max > BUDGET_MIB * MiB;
} finally {
  clearInterval(sampler);
  await browser?.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (!process.env.KEEP_DATA) rmSync(dataDir, { recursive: true, force: true });
}
if (failed) process.exit(1);
