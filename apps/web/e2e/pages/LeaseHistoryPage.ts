/**
 * Page model for the lease history (`/my/history`; on a phone My Proxies with Show history on) and
 * the phone's history details (`/my/history-details/{ip}`). Works on the mocked backend and on the
 * real stack alike.
 */
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export const NO_HISTORY_TEXT = 'No leases in the selected time period';
export const UNAVAILABLE_TEXT = 'This proxy is currently unavailable for purchase.';

export class LeaseHistoryPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  get searchBox(): Locator {
    return this.page.getByRole('textbox', { name: 'Search history' });
  }

  get searchButton(): Locator {
    return this.page.getByRole('search').getByRole('button', { name: 'Search' });
  }

  async search(text: string): Promise<void> {
    await this.searchBox.fill(text);
    await this.searchButton.click();
  }

  get firstDate(): Locator {
    return this.page.getByLabel('First date', { exact: true });
  }

  get lastDate(): Locator {
    return this.page.getByLabel('Last date', { exact: true });
  }

  /** Sets a date input (`YYYY-MM-DD`) and leaves it. */
  async setDate(which: 'first' | 'last', day: string): Promise<void> {
    const input = which === 'first' ? this.firstDate : this.lastDate;
    await input.fill(day);
    await input.blur();
  }

  get emptyState(): Locator {
    return this.page.getByTestId('history-empty');
  }

  /** Desktop rows, or phone cards. */
  get rows(): Locator {
    return this.page.getByTestId('history-row').or(this.page.getByTestId('history-card'));
  }

  async waitForRows(): Promise<void> {
    await this.rows.first().waitFor({ timeout: TIMEOUT_MS });
  }

  get pagerRange(): Locator {
    return this.page.getByTestId('pager-range');
  }

  async setRowsPerPage(n: 10 | 20): Promise<void> {
    await this.page.getByLabel('Rows per page:').selectOption(String(n));
  }

  async nextPage(): Promise<void> {
    await this.page.getByRole('button', { name: 'Go to next page' }).click();
  }

  /** Desktop: Buy Again on the row showing `ip`. */
  async buyAgain(ip: string): Promise<void> {
    await this.page
      .getByTestId('history-row')
      .filter({ hasText: ip })
      .getByRole('button', { name: 'Buy Again' })
      .click();
  }

  get unavailableDialog(): Locator {
    return this.page.getByRole('dialog', { name: 'Proxy Unavailable' });
  }

  // --- phone ---

  get showHistory(): Locator {
    return this.page.getByRole('switch', { name: 'Show history' });
  }

  /** Phone: opens a lease's history details from its card. */
  async openCard(ip: string): Promise<void> {
    await this.page.getByTestId('history-card').filter({ hasText: ip }).first().click();
    await this.details.waitFor({ timeout: TIMEOUT_MS });
  }

  get details(): Locator {
    return this.page.getByTestId('history-details');
  }

  /** A value of the history details ("Lease ID", "Isp", ...). */
  value(label: string): Locator {
    return this.details
      .locator('dt', { hasText: new RegExp(`^${label}$`) })
      .locator('xpath=following-sibling::dd[1]');
  }

  get detailsBuyAgain(): Locator {
    return this.details.getByRole('button', { name: 'Buy Again' });
  }
}
