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

/**
 * Saves a full-page screenshot as a test artifact: test-results/web/<name>.png. The viewport grows to
 * the page's height for the shot: Playwright's `fullPage` makes headless Chromium resize the window to
 * 1x1 for a moment, which flips the app's phone media query and remounts desktop screens mid-test.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Let menu, drawer and dialog transitions (225 ms in Material UI) finish first.
  await page.waitForTimeout(400); // sleeps: Material UI's transitions (225 ms) are not observable events
  const path = join(RESULTS_DIR, `${name}.png`);
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (!viewport || height <= viewport.height) {
    await page.screenshot({ path });
    return;
  }
  await page.setViewportSize({ width: viewport.width, height });
  try {
    await page.screenshot({ path });
  } finally {
    await page.setViewportSize(viewport);
  }
}
