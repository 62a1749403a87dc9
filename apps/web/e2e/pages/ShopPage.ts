/**
 * Page model for the shop: the desktop table, chips, filter row, Advanced Search and sidebar; the
 * phone's cards, Filter page, proxy detail and Confirm Purchase; and the purchase dialogs. Works on
 * the mocked backend and on the real stack alike (it only reads the screen).
 */
import type { Locator, Page } from 'playwright-core';
import { TIMEOUT_MS } from './ShellPage.ts';

export type LeaseType = 'Private' | 'Shared';

/** The purchase dialogs' titles (rules §8). */
export const PURCHASE_DIALOG_TITLES = {
  success: 'Purchase Successful',
  testFailed: 'The proxy is not responding',
  priceChanged: 'Price Changed',
  notEnoughFunds: 'Not Enough Funds',
  failed: 'Purchase Failed',
  infoChanged: 'Proxy Parameters Changed',
  alreadyLeased: 'Already Purchased',
  offline: 'Proxy offline',
} as const;

export class ShopPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  // --- both layouts ---

  /** A country chip, e.g. `chip('US')` (its name is "US 15"). */
  chip(cc: string): Locator {
    return this.page
      .getByRole('group', { name: 'Countries' })
      .getByRole('button', { name: new RegExp(`^${cc}\\b`) });
  }

  /** The count a chip shows ('…' while loading). */
  async chipCount(cc: string): Promise<string> {
    return (await this.page.getByTestId(`count-${cc}`).textContent()) ?? '';
  }

  async chooseCountry(cc: string): Promise<void> {
    await this.chip(cc).click();
  }

  /** Opens the More menu; returns its items' texts as shown (names cut at 15 characters, then the count). */
  async openMoreMenu(): Promise<Locator> {
    await this.page.getByRole('button', { name: 'More' }).click();
    const menu = this.page.getByRole('menu');
    await menu.waitFor({ timeout: TIMEOUT_MS });
    return menu;
  }

  async chooseFromMoreMenu(shownName: string): Promise<void> {
    const menu = await this.openMoreMenu();
    await menu.getByRole('menuitem', { name: shownName }).click();
  }

  /** "15 proxies in United States". */
  get total(): Locator {
    return this.page.getByTestId('shop-total');
  }

  get emptyMessage(): Locator {
    return this.page.getByTestId('shop-empty');
  }

  // --- desktop table ---

  get rows(): Locator {
    return this.page.getByTestId('agent-row');
  }

  async waitForRows(): Promise<void> {
    await this.rows.first().waitFor({ timeout: TIMEOUT_MS });
  }

  /** The cells of a row: IP, Region, City, ZIP, ISP, Clean, Shared, Conn, New, Price. */
  async rowCells(row: Locator): Promise<string[]> {
    return row.locator('td').allInnerTexts();
  }

  /** Column values of every row on the page, e.g. `columnValues(1)` for Region. */
  async columnValues(index: number): Promise<string[]> {
    return this.rows.locator(`td:nth-child(${index + 1})`).allInnerTexts();
  }

  /** Selects the row showing `ip` (as displayed, e.g. "198.51.100.***"), or the n-th row. */
  async selectRow(which: string | number): Promise<void> {
    const row =
      typeof which === 'number' ? this.rows.nth(which) : this.rows.filter({ hasText: which }).first();
    await row.click();
    await this.sidebar.getByRole('button', { name: /^Buy Proxy/ }).waitFor({ timeout: TIMEOUT_MS });
  }

  get sidebar(): Locator {
    return this.page.getByRole('complementary', { name: 'Proxy details' });
  }

  async chooseLeaseType(type: LeaseType, scope: Locator = this.sidebar): Promise<void> {
    await scope.getByRole('radio', { name: new RegExp(`^${type}`) }).check();
  }

  /** Desktop: the sidebar's Buy Proxy button, which names the price ("Buy Proxy for $2.50"). */
  get sidebarBuyButton(): Locator {
    return this.sidebar.getByRole('button', { name: /^Buy Proxy/ });
  }

  /** Desktop: Buy Proxy in the sidebar, which opens the Confirm Purchase dialog. */
  async buyFromSidebar(type?: LeaseType): Promise<Locator> {
    if (type) await this.chooseLeaseType(type);
    await this.sidebar.getByRole('button', { name: /^Buy Proxy/ }).click();
    const dialog = this.page.getByRole('dialog', { name: 'Confirm Purchase' });
    await dialog.waitFor({ timeout: TIMEOUT_MS });
    return dialog;
  }

  /** Desktop: Buy Proxy in the Confirm Purchase dialog. */
  async confirmPurchase(): Promise<void> {
    await this.page
      .getByRole('dialog', { name: 'Confirm Purchase' })
      .getByRole('button', { name: /^Buy Proxy/ })
      .click();
  }

  /** Desktop: Buy Proxy in the sidebar and in the Confirm Purchase dialog; returns the dialog titled `title` that answers. */
  async buySelected(title: string): Promise<Locator> {
    await this.buyFromSidebar();
    await this.confirmPurchase();
    const dialog = this.purchaseDialog(title);
    await dialog.waitFor({ timeout: TIMEOUT_MS });
    return dialog;
  }

  // --- desktop filter row and Advanced Search ---

  async showFilters(): Promise<Locator> {
    const row = this.page.getByTestId('filter-row');
    if (!(await row.isVisible())) await this.page.getByRole('button', { name: 'Filters' }).click();
    await row.waitFor({ timeout: TIMEOUT_MS });
    return row;
  }

  get ipPrefix(): Locator {
    return this.page.getByRole('textbox', { name: 'IP prefix' });
  }

  /** Types an IP prefix; the list follows 1 s after the last keystroke. */
  async typeIpPrefix(text: string): Promise<void> {
    await this.ipPrefix.fill(text);
  }

  /** Picks a region, city, ZIP or ISP in the filter row (or the Filter page) by its label. */
  async pickSegment(label: 'Region' | 'City' | 'ZIP' | 'ISP', value: string): Promise<void> {
    await this.page.getByRole('combobox', { name: label, exact: true }).click();
    await this.page.getByRole('option', { name: value, exact: true }).click();
  }

  /** Chooses in one of the filter row's selects: Clean, Shared, Conn or New. */
  async chooseFilter(label: 'Clean' | 'Shared' | 'Conn' | 'New', option: string): Promise<void> {
    await this.page.getByRole('combobox', { name: new RegExp(`^${label}`) }).click();
    await this.page.getByRole('option', { name: option, exact: true }).click();
  }

  get advancedSearchButton(): Locator {
    return this.page.getByRole('button', { name: 'Advanced Search' });
  }

  /** Advanced Search: a centre postal code and a radius ('None' or e.g. '50 miles'), then Apply. */
  async searchRadius(zip: string, radius: string): Promise<void> {
    await this.advancedSearchButton.click();
    const dialog = this.page.getByRole('dialog', { name: 'Advanced Search' });
    await dialog.getByRole('textbox', { name: 'Center ZIP/Postal code' }).fill(zip);
    await dialog.getByRole('combobox', { name: /^Radius/ }).click();
    await this.page.getByRole('option', { name: radius, exact: true }).click();
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  }

  // --- desktop pagination ---

  async setRowsPerPage(rows: 10 | 20 | 50): Promise<void> {
    await this.page.getByRole('combobox', { name: 'Rows per page:' }).selectOption(String(rows));
  }

  async nextPage(): Promise<void> {
    await this.page.getByRole('button', { name: 'Go to next page' }).click();
  }

  /** "1–10 of 15". */
  get pageRange(): Locator {
    return this.page.getByTestId('pager-range');
  }

  // --- phone ---

  get cards(): Locator {
    return this.page.getByTestId('agent-card');
  }

  async waitForCards(): Promise<void> {
    await this.cards.first().waitFor({ timeout: TIMEOUT_MS });
  }

  async showMore(): Promise<void> {
    await this.page.getByRole('button', { name: 'Show more' }).click();
  }

  /** Opens a proxy's detail page from its card (by displayed IP or position). */
  async openCard(which: string | number): Promise<void> {
    const card =
      typeof which === 'number' ? this.cards.nth(which) : this.cards.filter({ hasText: which }).first();
    await card.click();
    await this.page.getByTestId('agent-info').waitFor({ timeout: TIMEOUT_MS });
  }

  /** Phone: the Filter link to /filter; waits for the option lists. */
  async openFilterPage(): Promise<void> {
    await this.page.getByRole('link', { name: 'Filter' }).click();
    await this.page.getByRole('link', { name: 'Apply Filter' }).waitFor({ timeout: TIMEOUT_MS });
  }

  /** Filter page: a radio group (Type, Connection, Age) choice. */
  async chooseRadio(group: 'Type' | 'Connection' | 'Age', option: string): Promise<void> {
    await this.page
      .getByRole('radiogroup', { name: group })
      .getByRole('radio', { name: option, exact: true })
      .check();
  }

  /** Filter page: the Cleanliness slider (1 is "Any"). */
  get cleanliness(): Locator {
    return this.page.getByRole('slider', { name: /^Cleanliness/ });
  }

  /** Filter page: moves Cleanliness to "Any" (its lowest step). */
  async chooseAnyCleanliness(): Promise<void> {
    await this.cleanliness.focus();
    await this.cleanliness.press('Home');
  }

  async applyFilter(): Promise<void> {
    await this.page.getByRole('link', { name: 'Apply Filter' }).click();
  }

  /** Proxy detail (phone): one of Info, Blacklists, IP Score, Speed. */
  async openDetailTab(name: 'Info' | 'Blacklists' | 'IP Score' | 'Speed'): Promise<Locator> {
    await this.page.getByRole('tab', { name, exact: true }).click();
    return this.page.getByRole('tabpanel', { name });
  }

  /** Proxy detail (phone): choose the lease type and Buy Proxy, which opens Confirm Purchase. */
  async buyOnDetailPage(type?: LeaseType): Promise<void> {
    if (type) await this.chooseLeaseType(type, this.page.getByRole('main'));
    await this.page.getByRole('button', { name: 'Buy Proxy', exact: true }).click();
    await this.page.getByTestId('purchase-terms').waitFor({ timeout: TIMEOUT_MS });
  }

  /** Confirm Purchase page (phone): Buy Proxy. */
  async confirmOnPage(): Promise<void> {
    await this.page.getByRole('button', { name: 'Buy Proxy', exact: true }).click();
  }

  // --- purchase dialogs ---

  purchaseDialog(title: string): Locator {
    return this.page.getByRole('dialog', { name: title });
  }

  /** Closes a purchase dialog with its button (OK, Close, Cancel) and waits for it to go. */
  async dismissPurchaseDialog(title: string, button = 'OK'): Promise<void> {
    const dialog = this.purchaseDialog(title);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  }

  /** Waits for the success dialog, then for it to close itself. */
  async waitForPurchaseSuccess(): Promise<void> {
    const dialog = this.purchaseDialog(PURCHASE_DIALOG_TITLES.success);
    await dialog.waitFor({ timeout: TIMEOUT_MS });
    await dialog.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  }
}
