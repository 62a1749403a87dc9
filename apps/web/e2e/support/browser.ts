/** Headless Chromium for the journeys, and screenshots saved under test-results/. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
const RESULTS_DIR = join(import.meta.dirname, '../../../../test-results/web');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** Saves a full-page screenshot as a test artifact: test-results/web/<name>.png. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Let menu, drawer and dialog transitions (225 ms in Material UI) finish first.
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(RESULTS_DIR, `${name}.png`), fullPage: true });
}
