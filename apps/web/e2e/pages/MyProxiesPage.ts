/**
 * Page model for My Proxies: the desktop table and detail sidebar, the phone's cards and lease detail
 * page, and the lease tabs (Info, Socks Auth, Port NoAuth, Update Score, Test Speed, Blacklists).
 * Works on the mocked backend and on the real stack alike.
 */
import { waitFor } from '@pm/testkit';
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export type LeaseTab = 'Info' | 'Socks Auth' | 'Port NoAuth' | 'Update Score' | 'Test Speed' | 'Blacklists';

export class MyProxiesPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  get emptyState(): Locator {
    return this.page.getByTestId('leases-empty');
  }

  get filterBox(): Locator {
    return this.page.getByRole('textbox', { name: 'Filter proxies' });
  }

  // --- desktop ---

  get rows(): Locator {
    return this.page.getByTestId('lease-row');
  }

  async waitForRows(): Promise<void> {
    await this.rows.first().waitFor({ timeout: TIMEOUT_MS });
  }

  /** Desktop: opens the lease showing `ip` in the sidebar. */
  async selectLease(ip: string): Promise<void> {
    await this.rows.filter({ hasText: ip }).first().click();
    await this.detail.getByRole('heading', { name: ip }).waitFor({ timeout: TIMEOUT_MS });
  }

  /** The lease detail: the desktop sidebar, or the phone's /my/{id} page. */
  get detail(): Locator {
    return this.page
      .getByRole('complementary', { name: 'Proxy Details' })
      .or(this.page.getByRole('region', { name: 'Proxy Details' }));
  }

  // --- phone ---

  get cards(): Locator {
    return this.page.getByTestId('lease-card');
  }

  async waitForCards(): Promise<void> {
    await this.cards.first().waitFor({ timeout: TIMEOUT_MS });
  }

  /** Phone: opens a lease's detail page from its card. */
  async openCard(ip: string): Promise<void> {
    await this.cards.filter({ hasText: ip }).first().click();
    await this.page.getByRole('tab', { name: 'Info' }).waitFor({ timeout: TIMEOUT_MS });
  }

  get showHistory(): Locator {
    return this.page.getByRole('switch', { name: 'Show history' });
  }

  // --- tabs ---

  async openTab(name: LeaseTab): Promise<Locator> {
    const tab = this.detail.getByRole('tab', { name, exact: true });
    // On a phone the tabs scroll, and the scroller glides to the tab chosen last (about 300 ms); a
    // click in that moment can land on its neighbour, so it is repeated until the tab is chosen.
    const chosen = async () => (await tab.getAttribute('aria-selected')) === 'true';
    for (let attempt = 0; attempt < 5 && !(await chosen()); attempt++) {
      await tab.click();
      await waitFor(chosen, { timeoutMs: 350, what: `the ${name} tab chosen` }).catch(() => {});
    }
    const panel = this.detail.getByRole('tabpanel', { name });
    await panel.waitFor({ timeout: TIMEOUT_MS });
    return panel;
  }

  /** The value beside a label in the open tab ("Lease ID", "Uptime", "Total Requests", ...). */
  value(label: string): Locator {
    return this.detail
      .locator('dt', { hasText: new RegExp(`^${label}$`) })
      .locator('xpath=following-sibling::dd[1]');
  }

  // Info

  get note(): Locator {
    return this.detail.getByRole('textbox', { name: 'Add note' });
  }

  /** Types a note and leaves the field, which saves it. */
  async setNote(text: string): Promise<void> {
    await this.note.fill(text);
    await this.note.blur();
  }

  async toggleShowMore(): Promise<void> {
    await this.detail.getByRole('button', { name: /^Show (more|less)$/ }).click();
  }

  get autoRenew(): Locator {
    return this.detail.getByRole('switch', { name: 'Automatically renew' });
  }

  get renewButton(): Locator {
    return this.detail.getByRole('button', { name: 'Renew', exact: true });
  }

  get refundButton(): Locator {
    return this.detail.getByRole('button', { name: 'Refund', exact: true });
  }

  // Socks Auth

  get password(): Locator {
    return this.detail.getByTestId('socks-password');
  }

  async revealPassword(): Promise<void> {
    await this.detail.getByRole('button', { name: 'Show password' }).click();
  }

  async socksPorts(): Promise<string[]> {
    return this.detail.getByTestId('socks-ports').locator('.MuiChip-label').allInnerTexts();
  }

  async copyConnectionString(): Promise<void> {
    await this.detail.getByRole('button', { name: 'Copy connection string' }).click();
  }

  /**
   * Copy connection string, then what the clipboard holds (the context needs the clipboard-read and
   * clipboard-write permissions), once the app has said it copied.
   */
  async copiedConnectionString(): Promise<string> {
    await this.copyConnectionString();
    await this.page.getByText('Copied to clipboard', { exact: true }).waitFor({ timeout: TIMEOUT_MS });
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  // Port NoAuth

  get whitelist(): Locator {
    return this.detail.getByRole('textbox', { name: 'Whitelist' });
  }

  get saveWhitelistButton(): Locator {
    return this.detail.getByRole('button', { name: 'Save' });
  }
}
