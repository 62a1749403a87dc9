/**
 * The web app installable on Android (issue 36 item 10) on the whole product: the Downloads page
 * offers it and says what it does and does not do (1280 and 390 px); the site serves a valid
 * manifest with its icons and a service worker, Chromium reports the app installable (no
 * installability errors over CDP), and with the network gone the installed shell still opens and
 * says it cannot reach the server, where a browser without the worker gets nothing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TEST_TERMS_VERSION, type TestStack } from '@pm/devnet/stack';
import { type Browser, chromium, type Page } from 'playwright-core';
import { IdentityPages } from './pages/IdentityPages.ts';
import { ShellPage } from './pages/ShellPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, type StackVisit, signInOnStack, waitUntil } from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_pwa' }, (s, b) => {
  stack = s;
  browser = b;
});

const OFFLINE = "Can't connect to the server. Check your Internet connection and reload the page.";

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer): [number, number] {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG', 'a PNG file');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** Waits until the page is controlled by the app's service worker. */
async function waitForWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await waitUntil(
    () => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL.endsWith('/sw.js') ?? false),
    'the service worker controls the page',
  );
}

describe('the web app as an installable Android app', () => {
  it('the site serves a manifest with its icons, and the service worker', async () => {
    const res = await fetch(new URL('/manifest.webmanifest', stack.webUrl));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/manifest\+json/);
    const manifest = (await res.json()) as {
      name: string;
      start_url: string;
      display: string;
      icons: { src: string; sizes: string; type: string; purpose: string }[];
    };
    assert.equal(manifest.display, 'standalone');
    assert.equal(manifest.start_url, '/');
    const sizes = new Set<string>();
    for (const icon of manifest.icons) {
      const got = await fetch(new URL(icon.src, stack.webUrl));
      assert.equal(got.status, 200, icon.src);
      assert.equal(got.headers.get('content-type'), 'image/png');
      const [w, h] = pngSize(Buffer.from(await got.arrayBuffer()));
      assert.equal(`${w}x${h}`, icon.sizes, icon.src);
      sizes.add(`${icon.sizes} ${icon.purpose}`);
    }
    for (const need of ['192x192 any', '512x512 any', '512x512 maskable']) assert.ok(sizes.has(need), need);
    const sw = await fetch(new URL('/sw.js', stack.webUrl));
    assert.equal(sw.status, 200);
    assert.match(sw.headers.get('content-type') ?? '', /javascript/);
    assert.equal(sw.headers.get('cache-control'), 'no-cache', 'a new worker is seen at once');
  });

  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    it(`Downloads offers it and says what it does and does not do (${name})`, async () => {
      const v = await openStackVisit(browser, stack, { viewport });
      try {
        await signInOnStack(v, stack, stack.demo.customer, '/download');
        const card = v.page.getByTestId('download-android');
        await card.getByText('What it does not do').waitFor();
        const text = await card.innerText();
        assert.match(text, /installed from the browser/);
        assert.match(text, /Install app/);
        assert.match(text, /not a VPN or a proxy client/);
        assert.match(text, /Without a connection it still opens/);
        assert.doesNotMatch(text, /Not offered|There is no Android app/);
        const width = await v.page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `no horizontal scroll (${width} px)`);
        await saveScreenshot(v.page, `downloads-android-${name}`);
      } finally {
        await v.context.close();
      }
    });
  }

  it('Chromium reports it installable, and offline the installed shell opens and says so (390 px)', async () => {
    // A profile on disk: Chromium never offers to install from an incognito context (Playwright's default).
    const profile = await mkdtemp(join(tmpdir(), 'pm-pwa-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      viewport: PHONE,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    await context.addCookies([
      { name: 'acceptedTermsVersion', value: String(TEST_TERMS_VERSION), url: stack.webUrl },
    ]);
    const page = context.pages()[0] ?? (await context.newPage());
    const v: StackVisit = {
      context,
      page,
      shell: new ShellPage(page),
      identity: new IdentityPages(page, stack.issuer),
    };
    try {
      await signInOnStack(v, stack, stack.demo.customer, '/');
      await waitForWorker(v.page);
      const cdp = await v.context.newCDPSession(v.page);
      const app = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[] };
      assert.ok(app.url.endsWith('/manifest.webmanifest'), app.url);
      assert.deepEqual(app.errors, []);
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
        installabilityErrors: { errorId: string }[];
      };
      assert.deepEqual(installabilityErrors, [], 'Chromium: installable');

      await v.context.setOffline(true);
      await v.page.goto(new URL('/my', stack.webUrl).toString());
      await v.page.getByTestId('state-offline').getByText(OFFLINE).waitFor();
      await saveScreenshot(v.page, 'pwa-offline-phone');
      await v.context.setOffline(false);
      await v.page.reload();
      await v.shell.waitForShell();
    } finally {
      await v.context.close();
      await rm(profile, { recursive: true, force: true });
    }
    // Without the worker (a first visit), the same offline load gets no page at all.
    const bare = await openStackVisit(browser, stack, { viewport: PHONE });
    try {
      await bare.context.setOffline(true);
      await assert.rejects(
        bare.page.goto(new URL('/my', stack.webUrl).toString()),
        /ERR_INTERNET_DISCONNECTED/,
      );
    } finally {
      await bare.context.close();
    }
  });
});
