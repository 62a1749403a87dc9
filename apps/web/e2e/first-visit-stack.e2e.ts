/**
 * A first visit on the whole product (issue 36 item 8): the page goes to the sign-in host before the
 * app's code is fetched, so the app starts once, on the sign-in's return; every script crosses the
 * network at most once in a visit; the hashed assets are cached for a year as immutable, and the index
 * page, its client routes and the service worker are revalidated.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser, Response } from 'playwright-core';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, signInOnStack } from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_first_visit' }, (s, b) => {
  stack = s;
  browser = b;
});

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The module scripts the index page names (the entry), by path. */
async function entryScripts(): Promise<string[]> {
  const html = await (await fetch(new URL('/', stack.webUrl))).text();
  return [...html.matchAll(/<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
}

describe('a first visit', () => {
  it('hashed assets are immutable for a year; the index, client routes and sw.js are revalidated', async () => {
    const [entry] = await entryScripts();
    assert.ok(entry, 'the index names its entry script');
    const asset = await fetch(new URL(entry, stack.webUrl), { headers: { 'accept-encoding': 'br' } });
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), IMMUTABLE);
    for (const path of ['/', '/index.html', '/my', '/callback', '/sw.js', '/environments.json']) {
      const res = await fetch(new URL(path, stack.webUrl));
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
    }
    const missing = await fetch(new URL('/assets/missing-0000.js', stack.webUrl));
    assert.equal(missing.status, 404);
    assert.notEqual(missing.headers.get('cache-control'), IMMUTABLE, 'a 404 is never cached for a year');
  });

  it('starts the app once: the page before the sign-in fetches only the entry, every script crosses once', async () => {
    const v = await openStackVisit(browser, stack, { noServiceWorker: true });
    try {
      // Every script answer of the visit, whether it came before the page left for the sign-in host,
      // and whether it came over the network.
      const seen: { path: string; beforeSignIn: boolean; bytes: number }[] = [];
      let left = false;
      v.page.on('framenavigated', (frame) => {
        if (frame === v.page.mainFrame() && new URL(frame.url()).origin === new URL(stack.issuer).origin)
          left = true;
      });
      const pending: Promise<void>[] = [];
      const onResponse = (res: Response) => {
        const url = new URL(res.url());
        if (url.origin !== new URL(stack.webUrl).origin || !url.pathname.endsWith('.js')) return;
        const beforeSignIn = !left;
        pending.push(
          res
            .request()
            .sizes()
            .then((s) => {
              seen.push({ path: url.pathname, beforeSignIn, bytes: s.responseBodySize });
            }),
        );
      };
      v.page.on('response', onResponse);
      await signInOnStack(v, stack, stack.demo.customer, '/my');
      await v.page.waitForLoadState('networkidle');
      v.page.off('response', onResponse);
      await Promise.all(pending);

      const [entry] = await entryScripts();
      const beforeSignIn = seen.filter((s) => s.beforeSignIn);
      assert.deepEqual(
        beforeSignIn.map((s) => s.path),
        [entry],
        'before the sign-in the page fetched its entry alone, not the app',
      );
      // The entry is the sign-in library and the boot: React, Material UI and the screens come after.
      const entryBytes = beforeSignIn.reduce((n, s) => n + s.bytes, 0);
      assert.ok(entryBytes < 30_000, `the page before the sign-in fetched ${entryBytes} bytes of JavaScript`);
      const downloads = new Map<string, number>();
      for (const s of seen.filter((x) => x.bytes > 0))
        downloads.set(s.path, (downloads.get(s.path) ?? 0) + 1);
      const twice = [...downloads].filter(([, n]) => n > 1).map(([p]) => p);
      assert.deepEqual(twice, [], 'no script crossed the network twice');
      const appChunks = seen.filter((s) => /\/assets\/start-[\w-]+\.js$/.test(s.path));
      assert.equal(appChunks.length, 1, `the app's chunk was fetched once: ${JSON.stringify(appChunks)}`);
      assert.equal(new URL(v.page.url()).pathname, '/my', 'back on the page the visit asked for');
    } finally {
      await v.context.close();
    }
  });
});
