/**
 * Page model for the add-funds form: the desktop dialog (from the balance or the user menu) or the
 * phone's `/add-funds` page. `addFunds` returns the charge page the new tab opened.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ChargePage } from './ChargePage.ts';
import { TIMEOUT_MS } from './ShellPage.ts';

export const PAYMENT_ERROR_TEXT = 'Payment Error: Please try again later.';
export const UNDER_REVIEW_TITLE = 'Your account is under review';
export const UNDER_REVIEW_TEXT =
  "You can't add funds until your account is reviewed. Please allow 24 hours for the approval of a new account.";
export const USDT_FEE_NOTE = 'For USDT TRC20, sending under $10 has a transfer fee of about $3 deducted.';

export class AddFundsDialog {
  readonly page: Page;
  readonly root: Locator;

  constructor(page: Page, root: Locator) {
    this.page = page;
    this.root = root;
  }

  /** The desktop modal. */
  static dialog(page: Page): AddFundsDialog {
    return new AddFundsDialog(page, page.getByRole('dialog', { name: 'Add Funds' }));
  }

  /** The phone's `/add-funds` page. */
  static onPage(page: Page): AddFundsDialog {
    return new AddFundsDialog(page, page.locator('main'));
  }

  get amount(): Locator {
    return this.root.getByRole('textbox', { name: 'Amount in US dollars' });
  }

  get currency(): Locator {
    return this.root.getByRole('combobox');
  }

  get submit(): Locator {
    return this.root.getByRole('button', { name: 'Add Funds', exact: true });
  }

  get feeNote(): Locator {
    return this.root.getByTestId('usdt-fee-note');
  }

  get paymentError(): Locator {
    return this.root.getByTestId('payment-error');
  }

  get underReview(): Locator {
    return this.root.getByTestId('account-under-review');
  }

  /** The created charge's summary (currency, address, amount) that replaces the form. */
  get created(): Locator {
    return this.root.getByTestId('charge-created');
  }

  async waitForForm(): Promise<void> {
    await this.amount.waitFor({ timeout: TIMEOUT_MS });
  }

  async chooseCurrency(label: 'BTC' | 'LTC' | 'USDT TRC20'): Promise<void> {
    await this.currency.click();
    await this.page.getByRole('option', { name: label, exact: true }).click();
  }

  async currencyLabel(): Promise<string> {
    return ((await this.currency.textContent()) ?? '').trim();
  }

  /** Fills the form and clicks Add Funds. */
  async fill(dollars: string, currency?: 'BTC' | 'LTC' | 'USDT TRC20'): Promise<void> {
    if (currency) await this.chooseCurrency(currency);
    await this.amount.fill(dollars);
  }

  /** Adds funds and returns the charge page the new tab opens (`/charges/{code}`). */
  async addFunds(
    context: BrowserContext,
    dollars: string,
    currency?: 'BTC' | 'LTC' | 'USDT TRC20',
  ): Promise<ChargePage> {
    await this.fill(dollars, currency);
    const [tab] = await Promise.all([
      context.waitForEvent('page', { timeout: TIMEOUT_MS }),
      this.submit.click(),
    ]);
    await tab.waitForURL((u) => u.pathname.startsWith('/charges/'), { timeout: TIMEOUT_MS });
    const charge = new ChargePage(tab);
    await charge.waitForCharge();
    return charge;
  }
}
