/**
 * Page model for a lease's Renew and Refund (the desktop Proxy Details popup and the phone's lease
 * detail) and the lease's traffic chart. Works on the mocked backend and on the real stack alike.
 */
import type { Download, Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

/** The texts of rules §8, as the dialogs show them. */
export const RENEW_MESSAGES = {
  success: 'Renewed the proxy successfully',
  notEnoughFunds: 'Not enough funds on your balance',
  failed: 'Renewal failed, please contact support for help.',
} as const;

export const REFUND_CANCELED_MESSAGES = {
  ineligible: 'Your lease is not eligible for a refund',
  alive: 'The proxy is responsive and thus ineligible for an auto-refund',
  other: 'There was an error processing the refund request',
} as const;

export class LeaseLifecycleDialogs {
  readonly page: Page;
  /** The lease detail (sidebar or page) the buttons are in. */
  readonly detail: Locator;

  constructor(page: Page, detail: Locator) {
    this.page = page;
    this.detail = detail;
  }

  get renewButton(): Locator {
    return this.detail.getByRole('button', { name: 'Renew', exact: true });
  }

  get refundButton(): Locator {
    return this.detail.getByRole('button', { name: 'Refund', exact: true });
  }

  dialog(name: string): Locator {
    return this.page.getByRole('dialog', { name });
  }

  /** Renew, then Renew in the confirmation; returns the confirmation's text (it names the price). */
  async renew(): Promise<string> {
    await this.renewButton.click();
    const confirm = this.dialog('Renew Proxy');
    await confirm.waitFor({ timeout: TIMEOUT_MS });
    const text = (await confirm.textContent()) ?? '';
    await confirm.getByRole('button', { name: 'Renew', exact: true }).click();
    return text;
  }

  /** Waits for a renew message's dialog (rules §8). */
  async renewMessage(message: string): Promise<Locator> {
    const dialog = this.dialog(message);
    await dialog.waitFor({ timeout: TIMEOUT_MS });
    return dialog;
  }

  /** Refund, then Refund in the confirmation; returns the confirmation dialog's text. */
  async refund(): Promise<string> {
    await this.refundButton.click();
    const confirm = this.dialog('Refund Proxy');
    await confirm.waitFor({ timeout: TIMEOUT_MS });
    const text = (await confirm.textContent()) ?? '';
    await confirm.getByRole('button', { name: 'Refund', exact: true }).click();
    return text;
  }

  get refundCanceled(): Locator {
    return this.dialog('Refund Canceled');
  }

  get staticRefund(): Locator {
    return this.dialog('Refund Static Proxy');
  }

  /** Closes a dialog with its button and waits for it to go. */
  async close(dialog: Locator, button = 'OK'): Promise<void> {
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  }

  // --- traffic ---

  get trafficChart(): Locator {
    return this.detail.getByRole('img', { name: /^Hourly traffic/ });
  }

  get trafficTotals(): Locator {
    return this.detail.getByTestId('traffic-summary');
  }

  /** Clicks Download CSV and returns the download. */
  async downloadCsv(): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download', { timeout: TIMEOUT_MS }),
      this.detail.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    return download;
  }
}
