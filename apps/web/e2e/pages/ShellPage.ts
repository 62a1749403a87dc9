/** Page model for the app shell: top bars, menus, dialogs and full-screen states. */
import { createHash } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { MOCK_ISSUER } from '../support/mockBackend.ts';

export const TIMEOUT_MS = 15_000;

export class ShellPage {
  readonly page: Page;

  constructor(page: Page) {
    this.page = page;
  }

  /**
   * Opens a path of the app, optionally signed in with `token` through the spec's `?token=`
   * hand-off as the app runs it (bound to this tab): `?handoff=1` makes the app keep a state and a
   * PKCE verifier and go to the mock sign-in host's `/handoff`, which comes back with a one-time
   * code and the state; the app redeems the code with its verifier for `token`.
   */
  async open(baseUrl: string, path = '/', token?: string): Promise<void> {
    const url = new URL(path, baseUrl);
    if (token) {
      await this.mockHandoff(token);
      url.searchParams.set('handoff', '1');
    }
    await this.page.goto(url.toString());
  }

  /** The mock sign-in host's side of the hand-off, for this page: it hands out `token`. */
  private async mockHandoff(token: string): Promise<void> {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    let challenge = '';
    await this.page.route(
      (u) => u.href.startsWith(`${MOCK_ISSUER}/handoff`),
      async (route) => {
        const req = route.request();
        const u = new URL(req.url());
        if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
        if (u.pathname.endsWith('/handoff')) {
          challenge = u.searchParams.get('code_challenge') ?? '';
          const back = new URL(u.searchParams.get('redirect_uri') ?? '');
          back.searchParams.set('token', 'mock-handoff-code');
          back.searchParams.set('state', u.searchParams.get('state') ?? '');
          return route.fulfill({ status: 303, headers: { location: back.href } });
        }
        const body = req.postDataJSON() as { code?: string; code_verifier?: string };
        const s256 = createHash('sha256')
          .update(body.code_verifier ?? '')
          .digest('base64url');
        const ok = body.code === 'mock-handoff-code' && s256 === challenge;
        return route.fulfill({
          status: ok ? 200 : 400,
          headers: { ...cors, 'content-type': 'application/json' },
          body: JSON.stringify(
            ok ? { access_token: token, token_type: 'Bearer', expires_in: 300 } : { error: 'refused' },
          ),
        });
      },
    );
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
