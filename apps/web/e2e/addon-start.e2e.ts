/**
 * The add-on download of `npm start` itself (issue 36, item 1): the launcher runs as a person runs
 * it (scripts/start.ts, on a fresh database and free ports, the demo network off), the demo customer
 * clicks "Download add-on (.zip)" on /download at 1280 and 390 px, and what the browser saves is a
 * zip (`application/zip`, never the app's index page). Unzipped (fflate), it loads into Chromium as
 * an add-on: its service worker runs and its popup opens with this start's site address filled in.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BROWSER_ADDON_ID } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { unzipSync } from 'fflate';
import { type BrowserContext, chromium } from 'playwright-core';
import { IdentityPages } from './pages/IdentityPages.ts';
import { ShellPage, TIMEOUT_MS } from './pages/ShellPage.ts';
import { DESKTOP, launchBrowser, PHONE, saveScreenshot } from './support/browser.ts';
import { npmStartArgs } from './support/npmStart.ts';

const ROOT = join(import.meta.dirname, '../../..');
const PORT_NAMES = [
  'WEB_PORT',
  'API_PORT',
  'IDENTITY_PORT',
  'MAIL_PORT',
  'MAIL_SMTP_PORT',
  'CHAIN_PORT',
  'TICKER_PORT',
  'PORTS_PORT',
] as const;
/** A web build may be due first (sources newer than the build): `npm start` does it before listening. */
const START_TIMEOUT_MS = 300_000;

let db: TestDatabase;
let dir: string;
let child: ChildProcess | undefined;
let output = '';
let ports: Record<(typeof PORT_NAMES)[number], number>;
let context: BrowserContext | undefined;

/** A port the OS has just handed out and taken back (free for the launcher a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Runs `npm start`'s command line and resolves once its banner says it is running. */
async function startLauncher(): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: join(dir, 'data'),
    DEMO_AGENTS: '0',
    LOG_LEVEL: 'warn',
  };
  for (const name of PORT_NAMES) env[name] = String(ports[name]);
  child = spawn(process.execPath, npmStartArgs(ROOT), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const launcher = child;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not start:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ProxyMarket is running')) {
        clearTimeout(timer);
        resolve();
      }
    };
    launcher.stdout?.on('data', take);
    launcher.stderr?.on('data', take);
    launcher.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
}

before(
  async () => {
    db = await createTestDatabase('web_e2e_addon_start');
    dir = await mkdtemp(join(tmpdir(), 'pm-addon-start-'));
    const taken: number[] = [];
    for (const _ of PORT_NAMES) {
      let p = await freePort();
      while (taken.includes(p)) p = await freePort();
      taken.push(p);
    }
    ports = Object.fromEntries(PORT_NAMES.map((n, i) => [n, taken[i]])) as typeof ports;
    await startLauncher();
  },
  { timeout: START_TIMEOUT_MS + 30_000 },
);

after(
  async () => {
    await context?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

const webUrl = () => `http://localhost:${ports.WEB_PORT}`;

/** The demo customer `npm start` created and keeps in DATA_DIR/secrets.json. */
function demoCustomer(): { email: string; password: string } {
  const secrets = JSON.parse(readFileSync(join(dir, 'data', 'secrets.json'), 'utf8')) as {
    demo: { customer: { email: string; password: string } };
  };
  return secrets.demo.customer;
}

/** Writes the archive's entries under `to` (entry names checked: no absolute path, no `..`). */
function unzipTo(zip: Uint8Array, to: string): string[] {
  const entries = unzipSync(zip);
  for (const [name, data] of Object.entries(entries)) {
    assert.ok(!name.startsWith('/') && !name.split('/').includes('..'), `entry name ${name}`);
    if (name.endsWith('/')) continue;
    mkdirSync(dirname(join(to, name)), { recursive: true });
    writeFileSync(join(to, name), data);
  }
  return Object.keys(entries).sort();
}

describe('npm start offers the add-on as a zip that Chromium loads', () => {
  it('the Downloads button saves a zip at 1280 and 390 px', { timeout: 120_000 }, async () => {
    const head = await fetch(`${webUrl()}/downloads/proxymarket-addon.zip`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'application/zip');
    const browser = await launchBrowser();
    try {
      for (const [viewport, name] of [
        [DESKTOP, 'addon-start-downloads-desktop'],
        [PHONE, 'addon-start-downloads-phone'],
      ] as const) {
        const visit = await browser.newContext({ viewport, acceptDownloads: true });
        visit.setDefaultTimeout(TIMEOUT_MS);
        await visit.addCookies([{ name: 'acceptedTermsVersion', value: '1', url: webUrl() }]);
        const page = await visit.newPage();
        await page.goto(`${webUrl()}/download`);
        const who = demoCustomer();
        await new IdentityPages(page, `http://localhost:${ports.IDENTITY_PORT}`).signIn(
          who.email,
          who.password,
        );
        await page.waitForURL((u) => u.href.startsWith(webUrl()), { timeout: TIMEOUT_MS });
        await new ShellPage(page).waitForShell();
        const button = page.getByRole('link', { name: 'Download add-on (.zip)' });
        await button.waitFor();
        await saveScreenshot(page, name);
        const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
        assert.equal(download.suggestedFilename(), 'proxymarket-addon.zip');
        const saved = join(dir, `${name}.zip`);
        await download.saveAs(saved);
        const bytes = readFileSync(saved);
        assert.equal(bytes.subarray(0, 4).toString('latin1'), 'PK\x03\x04', 'a zip, not a page');
        await visit.close();
      }
    } finally {
      await browser.close();
    }
    const names = unzipTo(readFileSync(join(dir, 'addon-start-downloads-desktop.zip')), join(dir, 'addon'));
    for (const file of ['manifest.json', 'background.js', 'popup.html', 'popup.js'])
      assert.ok(names.includes(file), `${file} in ${names.join(', ')}`);
    const manifest = JSON.parse(readFileSync(join(dir, 'addon', 'manifest.json'), 'utf8'));
    assert.equal(manifest.manifest_version, 3);
  });

  it('the unzipped add-on loads: its service worker runs and its popup knows this site', {
    timeout: 60_000,
  }, async () => {
    const addon = join(dir, 'addon');
    context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: false,
      args: [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--disable-extensions-except=${addon}`,
        `--load-extension=${addon}`,
      ],
    });
    const worker =
      context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    assert.equal(worker.url(), `chrome-extension://${BROWSER_ADDON_ID}/background.js`);
    const popup = await context.newPage();
    await popup.goto(`chrome-extension://${BROWSER_ADDON_ID}/popup.html`);
    // `npm start` packed the add-on with its own site address.
    assert.equal(await popup.getByLabel('Site address').inputValue({ timeout: 15_000 }), webUrl());
    await popup.getByRole('button', { name: 'Sign in' }).waitFor();
    await popup.setViewportSize({ width: 360, height: 400 });
    await popup.screenshot({ path: join(ROOT, 'test-results/web/addon-start-popup.png') });
  });
});
