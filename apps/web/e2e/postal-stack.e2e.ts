/**
 * An unknown postal code on the whole product (issue 28): `GET /agents` answers 400 naming `geozip`.
 * Typed into Advanced Search (1280 px) or the Filter page (390 px), it is that field's error and the
 * search does not apply; in the address (a bookmark, an edited link) it is dropped with a message and
 * the shop shows the rest, never the global error screen. startStack with the demo network, so a known
 * code (Boston's 02108) then finds the Boston agent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { ShopPage } from './pages/ShopPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, signInOnStack, waitUntil } from './support/stackVisit.ts';

const GLOBAL_ERROR = /We had an error/;
const FIELD_ERROR = 'Unknown ZIP/postal code for this country';
const DROPPED = 'Unknown ZIP/postal code for this country: 99999 was removed from the search.';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_postal', network: {} }, (s, b) => {
  stack = s;
  browser = b;
});

async function visit(viewport: typeof DESKTOP) {
  const v = await openStackVisit(browser, stack, { viewport });
  await signInOnStack(v, stack, stack.demo.customer);
  return { ...v, shop: new ShopPage(v.page) };
}

describe('an unknown postal code', () => {
  it('1280 px: dropped from the address with a message; Advanced Search shows it on its field', async () => {
    const v = await visit(DESKTOP);
    try {
      await v.page.goto(new URL('/shop?city=Boston&geozip=99999&georad=30', stack.webUrl).toString());
      await v.page.getByText(DROPPED).waitFor();
      await waitUntil(
        async () => !new URL(v.page.url()).searchParams.has('geozip'),
        'the code leaves the address',
      );
      assert.equal(new URL(v.page.url()).searchParams.get('city'), 'Boston', 'the rest of the filter stays');
      await v.shop.total.filter({ hasText: 'in United States' }).waitFor();
      await v.shop.waitForRows();
      assert.doesNotMatch(await v.page.locator('body').innerText(), GLOBAL_ERROR);
      await saveScreenshot(v.page, 'postal-stack-dropped-desktop');

      await v.shop.advancedSearchButton.click();
      const dialog = v.page.getByRole('dialog', { name: 'Advanced Search' });
      const zip = dialog.getByRole('textbox', { name: 'Center ZIP/Postal code' });
      await zip.fill('00000');
      await dialog.getByRole('combobox', { name: /^Radius/ }).click();
      await v.page.getByRole('option', { name: '30 miles', exact: true }).click();
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await dialog.getByText(FIELD_ERROR, { exact: true }).waitFor();
      assert.equal(await zip.getAttribute('aria-invalid'), 'true');
      assert.equal(new URL(v.page.url()).searchParams.has('geozip'), false, 'nothing applied');
      await saveScreenshot(v.page, 'postal-stack-field-error-desktop');

      await zip.fill('02108');
      assert.equal(await dialog.getByText(FIELD_ERROR).count(), 0, 'typing clears the error');
      await dialog.getByRole('button', { name: 'Apply' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await v.page.getByText('Within 30 mi of 02108').waitFor();
      await v.shop.waitForRows();
      assert.ok((await v.shop.columnValues(2)).includes('Boston'));
    } finally {
      await v.context.close();
    }
  });

  it('390 px: dropped from the address; the Filter page shows it on its field and stays', async () => {
    const v = await visit(PHONE);
    try {
      await v.page.goto(new URL('/shop?geozip=99999&georad=30', stack.webUrl).toString());
      await v.page.getByText(DROPPED).waitFor();
      await waitUntil(
        async () => !new URL(v.page.url()).searchParams.has('geozip'),
        'the code leaves the address',
      );
      await v.shop.waitForCards();
      assert.doesNotMatch(await v.page.locator('body').innerText(), GLOBAL_ERROR);
      await saveScreenshot(v.page, 'postal-stack-dropped-phone');

      await v.shop.openFilterPage();
      await v.page.getByRole('button', { name: 'Show advanced options' }).click();
      const zip = v.page.getByRole('textbox', { name: 'Center ZIP/Postal' });
      await zip.fill('99999');
      const radius = v.page.getByRole('slider', { name: 'Search radius (mi)' });
      await radius.focus();
      await radius.press('End');
      await v.shop.applyFilter();
      await v.page.getByText(FIELD_ERROR, { exact: true }).waitFor();
      assert.equal(new URL(v.page.url()).pathname, '/filter', 'the page stays');
      assert.equal(await zip.getAttribute('aria-invalid'), 'true');
      await saveScreenshot(v.page, 'postal-stack-field-error-phone');

      await zip.fill('02108');
      await v.shop.applyFilter();
      await v.page.waitForURL((u) => u.pathname === '/shop' && u.searchParams.get('geozip') === '02108');
      await v.shop.waitForCards();
      assert.match((await v.shop.cards.allInnerTexts()).join('\n'), /Boston/);
    } finally {
      await v.context.close();
    }
  });
});
