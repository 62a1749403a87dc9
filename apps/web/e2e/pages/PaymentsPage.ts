/** Page model for `/payments`: the date pickers, the desktop table and pager, the phone's list. */
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export const NO_TRANSACTIONS_TEXT = 'No transactions found';

export class PaymentsPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  get firstDate(): Locator {
    return this.page.getByLabel('First date', { exact: true });
  }

  get lastDate(): Locator {
    return this.page.getByLabel('Last date', { exact: true });
  }

  /** Desktop table rows. */
  get rows(): Locator {
    return this.page.getByTestId('payment-row');
  }

  /** Phone list cards. */
  get cards(): Locator {
    return this.page.getByTestId('payment-card');
  }

  get empty(): Locator {
    return this.page.getByTestId('payments-empty');
  }

  get pagerRange(): Locator {
    return this.page.getByTestId('pager-range');
  }

  get showMore(): Locator {
    return this.page.getByRole('button', { name: 'Show more payments' });
  }

  /** The Add Funds link (desktop: a button opening the dialog; phones: a link to /add-funds). */
  get addFunds(): Locator {
    return this.page.locator('main').getByRole(this.isPhone() ? 'link' : 'button', { name: 'Add Funds' });
  }

  private isPhone(): boolean {
    return (this.page.viewportSize()?.width ?? 1280) <= 480;
  }

  async waitForRows(): Promise<void> {
    await (this.isPhone() ? this.cards : this.rows).first().waitFor({ timeout: TIMEOUT_MS });
  }

  async waitForEmpty(): Promise<void> {
    await this.empty.waitFor({ timeout: TIMEOUT_MS });
  }

  /** Sets a date input (`YYYY-MM-DD`) and leaves it, as a person does. */
  async setDate(which: 'first' | 'last', day: string): Promise<void> {
    const input = which === 'first' ? this.firstDate : this.lastDate;
    await input.fill(day);
    await input.blur();
  }

  async dates(): Promise<{ first: string; last: string; min: string | null; max: string | null }> {
    return {
      first: await this.firstDate.inputValue(),
      last: await this.lastDate.inputValue(),
      min: await this.firstDate.getAttribute('min'),
      max: await this.firstDate.getAttribute('max'),
    };
  }

  /** Cell texts of the table's rows: [time, type, memo, amount, balance]. */
  async rowTexts(): Promise<string[][]> {
    return this.rows.evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
  }

  async nextPage(): Promise<void> {
    await this.page.getByRole('button', { name: 'Go to next page' }).click();
  }
}
