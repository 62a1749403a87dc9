/** Page model for the app shell: top bars, menus, dialogs and full-screen states. */
import type { Locator, Page } from 'playwright-core';

export const TIMEOUT_MS = 15_000;

export class ShellPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  /** Opens a path of the app, optionally handing over an access token with `?token=`. */
  async open(baseUrl: string, path = '/', token?: string): Promise<void> {
    const url = new URL(path, baseUrl);
    if (token) url.searchParams.set('token', token);
    await this.page.goto(url.toString());
  }

  text(text: string): Locator {
    return this.page.getByText(text, { exact: true });
  }

  get balance(): Locator {
    return this.page.getByTestId('balance').first();
  }

  get screenTitle(): Locator {
    return this.page.getByTestId('screen-title');
  }

  async waitForShell(): Promise<void> {
    await this.page.locator('main').waitFor({ timeout: TIMEOUT_MS });
  }

  async waitForBalance(text: string): Promise<void> {
    await this.page.getByTestId('balance').filter({ hasText: text }).first().waitFor({ timeout: TIMEOUT_MS });
  }

  /**
   * Accepts the Terms modal if it shows within `waitMs`: its code loads on first use, so it can
   * appear a moment after the shell.
   */
  async acceptTermsIfShown(waitMs = 5_000): Promise<void> {
    const accept = this.page.getByRole('button', { name: 'Accept' });
    const isShown = await accept
      .waitFor({ timeout: waitMs })
      .then(() => true)
      .catch(() => false);
    if (!isShown) return;
    await accept.click();
    await accept.waitFor({ state: 'hidden', timeout: TIMEOUT_MS });
  }

  async openUserMenu(): Promise<Locator> {
    await this.page.getByRole('button', { name: 'Account menu' }).click();
    const menu = this.page.getByRole('menu');
    await menu.waitFor({ timeout: TIMEOUT_MS });
    return menu;
  }

  async chooseUserMenuItem(name: string): Promise<void> {
    const menu = await this.openUserMenu();
    await menu.getByRole('menuitem', { name }).click();
  }

  async openSideMenu(): Promise<Locator> {
    await this.page.getByRole('button', { name: 'Open menu' }).click();
    const menu = this.page.getByTestId('side-menu');
    await menu.waitFor({ timeout: TIMEOUT_MS });
    return menu;
  }

  async logout(): Promise<void> {
    await this.chooseUserMenuItem('Logout');
  }

  /** Waits for a full-screen state: 'offline', 'maintenance', 'error' or 'config-error'. */
  async waitForState(
    state: 'offline' | 'maintenance' | 'error' | 'config-error' | 'unsupported-browser',
  ): Promise<Locator> {
    const locator = this.page.getByTestId(`state-${state}`);
    await locator.waitFor({ timeout: TIMEOUT_MS });
    return locator;
  }
}
