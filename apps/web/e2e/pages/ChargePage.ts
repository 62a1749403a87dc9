/** Page model for the charge page `/charges/{code}`: status, address, amounts, QR code, copy. */
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export const WALLET_WARNING =
  'After pasting the address into your wallet, be sure it is the same as the address on this site.';

export class ChargePage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  /** The code in the page's address. */
  get code(): string {
    return decodeURIComponent(new URL(this.page.url()).pathname.split('/').pop() ?? '');
  }

  get status(): Locator {
    return this.page.getByTestId('charge-status');
  }

  get address(): Locator {
    return this.page.getByTestId('charge-address');
  }

  get amount(): Locator {
    return this.page.getByTestId('charge-amount');
  }

  get usdAmount(): Locator {
    return this.page.getByTestId('charge-usd');
  }

  get details(): Locator {
    return this.page.getByTestId('charge-details');
  }

  get qrCode(): Locator {
    return this.page.getByTestId('charge-qr');
  }

  get walletWarning(): Locator {
    return this.page.getByTestId('wallet-warning');
  }

  get notFound(): Locator {
    return this.page.getByTestId('charge-not-found');
  }

  async waitForCharge(): Promise<void> {
    await this.status.waitFor({ timeout: TIMEOUT_MS });
  }

  /** The status as its data attribute says it: new, pending, partial, paid or expired. */
  async statusCode(): Promise<string | null> {
    return this.status.getAttribute('data-status');
  }

  /** The short label of the banner: Paid, No payments, Pending, Partly paid, Expired. */
  async statusLabel(): Promise<string> {
    return ((await this.status.locator('.MuiAlertTitle-root').textContent()) ?? '').trim();
  }

  /** Waits (bounded) for the status, e.g. 'paid' after a payment and a poll. */
  async waitForStatus(status: string, timeoutMs = TIMEOUT_MS): Promise<void> {
    await this.page
      .locator(`[data-testid="charge-status"][data-status="${status}"]`)
      .waitFor({ timeout: timeoutMs });
  }

  /** The value the QR code encodes, and whether an SVG QR code is drawn. */
  async qrValue(): Promise<{ value: string | null; hasSvg: boolean }> {
    return {
      value: await this.qrCode.getAttribute('data-value'),
      hasSvg: (await this.qrCode.locator('svg path').count()) > 0,
    };
  }

  /** The value of a detail row by its label ("Exchange rate", "Bonus", "Date"). */
  async detail(label: string): Promise<string> {
    const value = this.details.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]');
    return ((await value.textContent()) ?? '').trim();
  }

  async copyAddress(): Promise<void> {
    await this.page.getByRole('button', { name: 'Copy address' }).click();
  }
}
