/** The whole product and a headless browser for one journey file, started before its tests and closed after. */
import { after, before } from 'node:test';
import { startStack, type TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser.ts';

/**
 * Registers the file's `before` (`o.first`, then the stack, then the browser; `ready` gets both) and
 * `after` (the browser, the stack, then `o.last`).
 */
export function stackSuite(
  config: Parameters<typeof startStack>[0],
  ready: (stack: TestStack, browser: Browser) => void,
  o: { first?: () => Promise<void>; last?: () => void } = {},
): void {
  let stack: TestStack | undefined;
  let browser: Browser | undefined;
  before(
    async () => {
      await o.first?.();
      stack = await startStack(config);
      browser = await launchBrowser();
      ready(stack, browser);
    },
    { timeout: 120_000 },
  );
  after(
    async () => {
      await browser?.close();
      await stack?.close();
      o.last?.();
    },
    { timeout: 60_000 },
  );
}
