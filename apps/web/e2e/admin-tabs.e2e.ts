/**
 * Issue 35 item 5: the admin area's tab lives in the address. A shared link opens its tab, a reload
 * keeps it, Back returns to the tab before, and plain /bigadmin is User Info (mock backend).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STAFF_PERMISSIONS } from '@pm/contracts';
import type { Page } from 'playwright-core';
import { DESKTOP } from './support/browser.ts';
import { type MockApp, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

const selected = (page: Page, name: string) => page.getByRole('tab', { name, selected: true }).waitFor();
const tabParam = (page: Page) => new URL(page.url()).searchParams.get('tab');

describe('admin tabs in the address', () => {
  it('opens the linked tab, keeps it on reload and goes back to the one before', async () => {
    const session = await app.newSession({ viewport: DESKTOP });
    const { page } = session.shell;
    try {
      await session.shell.open(app.baseUrl, '/bigadmin?tab=audit', fakeAccessToken([...STAFF_PERMISSIONS]));
      await selected(page, 'Audit');
      await page.getByRole('heading', { name: 'Audit trail' }).waitFor();

      await page.getByRole('tab', { name: 'User Balance' }).click();
      await selected(page, 'User Balance');
      assert.equal(tabParam(page), 'balance');

      await page.reload();
      await selected(page, 'User Balance');
      await page.getByRole('heading', { name: 'Balance change' }).waitFor();

      await page.goBack();
      await selected(page, 'Audit');
      assert.equal(tabParam(page), 'audit');
    } finally {
      await session.context.close();
    }
  });

  it('shows User Info for /bigadmin and for an unknown tab', async () => {
    const session = await app.newSession({ viewport: DESKTOP });
    const { page } = session.shell;
    try {
      await session.shell.open(app.baseUrl, '/bigadmin?tab=nope', fakeAccessToken([...STAFF_PERMISSIONS]));
      await selected(page, 'User Info');
      await page.getByRole('tab', { name: 'Pricing' }).click();
      await selected(page, 'Pricing');
      assert.equal(tabParam(page), 'pricing');
      await page.goto(new URL('/bigadmin', app.baseUrl).href);
      await selected(page, 'User Info');
    } finally {
      await session.context.close();
    }
  });
});
