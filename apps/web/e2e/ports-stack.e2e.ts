/**
 * Ports on the whole product with the demo proxy network (issue 25), as `npm start` runs it: the
 * demo customer buys a 1 Gb package of 100 New York ports in the New Port dialog, `curl` fetches a
 * page through a port by SOCKS5 and by HTTP, the rotation link moves the port to another exit, and
 * the Ports page shows the new exit. The same page at 390 px.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PORT_REFUND_AMOUNT_TEXT } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import { type Browser, chromium, type Page } from 'playwright-core';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { type LoopbackPage, startLoopbackPage } from './support/loopback.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, signInOnStack, waitUntil } from './support/stackVisit.ts';

const run = promisify(execFile);
const PAGE = 'hello through a port';

let browser: Browser;
let stack: TestStack;
let target: LoopbackPage;

stackSuite(
  { label: 'web_e2e_ports', network: {} },
  (s, b) => {
    stack = s;
    browser = b;
  },
  {
    first: async () => {
      target = await startLoopbackPage(PAGE);
    },
    last: () => target?.close(),
  },
);

async function choose(page: Page, label: string, option: RegExp) {
  await page.getByRole('combobox', { name: label }).click();
  await page.getByRole('option', { name: option }).first().click();
}

async function curl(args: string[]): Promise<{ code: number; said: string }> {
  try {
    const { stdout } = await run('curl', ['-sS', '--max-time', '5', ...args, target.url]);
    return { code: 0, said: stdout };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { code: err.code ?? 1, said: err.stderr ?? '' };
  }
}

describe('Ports on the real stack', () => {
  it('buys a 1 Gb New York package, proxies by SOCKS5 and HTTP, rotates by the link and sees the exit change', async () => {
    const v = await openStackVisit(browser, stack);
    try {
      await signInOnStack(v, stack, stack.demo.customer, '/ports');
      const page = v.page;
      await page.getByTestId('new-port').click();
      await choose(page, 'Country', /^United States/);
      await choose(page, 'State', /^NY /);
      await choose(page, 'City', /^New York /);
      const price = page.getByTestId('port-price');
      // The live price follows each choice: wait for the city's price, not the country's first quote.
      await waitUntil(
        async () => /\$3\.90/.test((await price.textContent()) ?? ''),
        'the live price of the city',
      );
      await page.getByTestId('port-buy').click();
      await page.getByTestId('port-confirm').click();
      await page.getByTestId('port-row').first().waitFor();
      const socks = (await page.getByTestId('port-socks').textContent()) ?? '';
      const http = (await page.getByTestId('port-http').textContent()) ?? '';
      const link = (await page.getByTestId('port-rotation-link').textContent()) ?? '';
      // A port of the node's own package range (the stack's), one the node bound before it was sold.
      assert.match(socks, /^socks5h:\/\/u\w+:\w+@[\d.]+:\d{4,5}$/);

      let r = await curl(['--proxy', socks]);
      assert.equal(r.code, 0, r.said);
      assert.equal(r.said, PAGE);
      r = await curl(['-x', http]);
      assert.equal(r.code, 0, r.said);
      assert.equal(r.said, PAGE);

      const exitShown = async () => {
        await page.reload();
        const text = (await page.getByTestId('port-exit').textContent()) ?? '';
        return /^\d+\.\d+\.\d+\.\d+$/.test(text) ? text : undefined;
      };
      let first: string | undefined;
      await waitUntil(async () => {
        first = await exitShown();
        return first !== undefined;
      }, 'the first exit shown');
      const rotated = await fetch(link);
      assert.equal(rotated.status, 200, await rotated.text());
      assert.equal((await fetch(link)).status, 429, 'at most every 5 minutes');
      let second: string | undefined;
      await waitUntil(async () => {
        await curl(['--proxy', socks]);
        second = await exitShown();
        return second !== undefined && second !== first;
      }, 'the exit changes after the rotation');
      assert.notEqual(second, first);
      // Refused sign-ins: their own line beside the requests and their failures.
      assert.match((await page.getByTestId('port-auth-fails').textContent()) ?? '', /^\d+$/);
      await saveScreenshot(page, 'ports-desktop');

      // The whitelist: switched in the sidebar, then Chromium itself uses the HTTP twin, no password.
      await page.getByTestId('port-settings-whitelist').fill('127.0.0.1');
      await page.getByRole('button', { name: 'Switch to whitelist' }).click();
      await page.getByText('Access: whitelist').waitFor();
      const twin = Number(/:(\d+)$/.exec(http)?.[1]);
      const proxied = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        // Chromium never proxies loopback unless told to (`<-loopback>`); the target page is on loopback.
        args: [
          '--no-sandbox',
          '--disable-gpu',
          `--proxy-server=http://127.0.0.1:${twin}`,
          '--proxy-bypass-list=<-loopback>',
        ],
      });
      try {
        const tab = await proxied.newPage();
        let body = '';
        await waitUntil(async () => {
          const res = await tab.goto(target.url).catch(() => null);
          body = (await res?.text().catch(() => '')) ?? '';
          return body === PAGE;
        }, 'Chromium through the whitelisted HTTP port (applied within 2 s)');
        assert.equal(body, PAGE);
      } finally {
        await proxied.close();
      }
    } finally {
      await v.context.close();
    }
  });

  it('the Ports page at 390 px: each row shows its ports and status, the settings below', async () => {
    const v = await openStackVisit(browser, stack, { viewport: PHONE });
    try {
      await signInOnStack(v, stack, stack.demo.customer, '/ports');
      await v.page.getByTestId('port-row').first().waitFor();
      // A second package of the same place, bought on the phone: its row must not look like the first.
      const rowsBefore = await v.page.getByTestId('port-row').count();
      await v.page.getByTestId('new-port').click();
      await choose(v.page, 'Country', /^United States/);
      await choose(v.page, 'State', /^NY /);
      await choose(v.page, 'City', /^New York /);
      await waitUntil(
        async () => /\$3\.90/.test((await v.page.getByTestId('port-price').textContent()) ?? ''),
        'the live price of the city',
      );
      await v.page.getByTestId('port-buy').click();
      await v.page.getByTestId('port-confirm').click();
      await waitUntil(
        async () => (await v.page.getByTestId('port-row').count()) === rowsBefore + 1,
        'the second package in the list',
      );
      const rows = v.page.getByTestId('port-row');
      const places = await rows.locator('td:first-child').allInnerTexts();
      const ports = await v.page.getByTestId('port-row-ports').allInnerTexts();
      assert.equal(ports.length, rowsBefore + 1, 'every row shows its ports');
      assert.equal(new Set(ports).size, ports.length, `no two rows alike: ${ports.join(' | ')}`);
      for (const p of ports) assert.match(p, /^\d{4,5}-\d{4,5} \(100 ports\)$/);
      assert.ok(
        places.every((p) => p.startsWith('US / NY / New York, Both')),
        places.join(' | '),
      );
      assert.deepEqual(
        await v.page.getByTestId('port-row-status').allInnerTexts(),
        ports.map(() => 'Active'),
      );
      await v.page.getByTestId('port-settings').waitFor();
      const width = await v.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= PHONE.width, `no horizontal scroll (${width} px)`);
      assert.match((await v.page.getByTestId('port-auth-fails').textContent()) ?? '', /^\d+$/);
      await saveScreenshot(v.page, 'ports-phone');
      // The refund's confirm dialog states what comes back: the last charge less the traffic used.
      const refund = v.page.getByTestId('port-refund');
      if (await refund.isVisible()) {
        await refund.click();
        await v.page.getByText(PORT_REFUND_AMOUNT_TEXT, { exact: false }).waitFor();
        await saveScreenshot(v.page, 'ports-refund-phone');
        await v.page.getByRole('button', { name: 'Cancel' }).click();
      }
    } finally {
      await v.context.close();
    }
  });
});
