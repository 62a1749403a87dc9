/**
 * Page model for the static-proxy shop (`/static`): quick countries, the ip, city, isp and conn
 * filters, the pager, and the static purchase dialogs. Works on the mocked backend and on the real
 * stack alike.
 */
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export class StaticShopPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  get rows(): Locator {
    return this.page.getByTestId('static-row');
  }

  async waitForRows(): Promise<void> {
    await this.rows.first().waitFor({ timeout: TIMEOUT_MS });
  }

  get emptyState(): Locator {
    return this.page.getByTestId('static-empty');
  }

  async chooseCountry(name: string): Promise<void> {
    await this.page.getByRole('group', { name: 'Country' }).getByRole('button', { name }).click();
  }

  /** Types into a text filter ("IP", "City", "ISP"); it applies once typing pauses. */
  async filterBy(label: 'IP' | 'City' | 'ISP', text: string): Promise<void> {
    await this.page.getByRole('textbox', { name: label, exact: true }).fill(text);
  }

  async chooseConnection(option: 'Any' | 'Wifi' | 'Cell'): Promise<void> {
    // The browser's own select.
    await this.page.getByRole('combobox', { name: 'Connection' }).selectOption({ label: option });
  }

  get pagerRange(): Locator {
    return this.page.getByTestId('pager-range');
  }

  async setRowsPerPage(n: 10 | 20 | 50): Promise<void> {
    await this.page.getByLabel('Rows per page:').selectOption(String(n));
  }

  async nextPage(): Promise<void> {
    await this.page.getByRole('button', { name: 'Go to next page' }).click();
  }

  /** Buy on the row showing `ip`: the Confirm Purchase dialog. */
  async buy(ip: string): Promise<Locator> {
    await this.rows.filter({ hasText: ip }).getByRole('button', { name: /^Buy/ }).click();
    const dialog = this.dialog('Confirm Purchase');
    await dialog.waitFor({ timeout: TIMEOUT_MS });
    return dialog;
  }

  async confirm(): Promise<void> {
    await this.dialog('Confirm Purchase')
      .getByRole('button', { name: /^Buy Proxy for/ })
      .click();
  }

  dialog(name: string): Locator {
    return this.page.getByRole('dialog', { name });
  }
}
