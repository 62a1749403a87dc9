/** The built app on a static server plus headless Chromium, with the API and identity mocked per context. */
import type { TAccount } from '@pm/contracts';
import type { Browser, BrowserContext } from 'playwright-core';
import { ShellPage, TIMEOUT_MS } from '../pages/ShellPage.ts';
import { DESKTOP, launchBrowser } from './browser.ts';
import { buildAccount, installMockBackend, type MockApi, mockEnvironment } from './mockBackend.ts';
import { type StaticServer, startStaticServer } from './staticServer.ts';

export interface MockSession {
  context: BrowserContext;
  shell: ShellPage;
  api: MockApi;
}

export interface MockSessionOptions {
  viewport?: typeof DESKTOP;
  /** The account `GET /accounts/my` answers; null answers 404 until `PUT /accounts/my` creates one. */
  account?: TAccount | null;
  /** Sets the Terms cookie to the current version first (default true). */
  termsAccepted?: boolean;
  userAgent?: string;
  /** The browser's locale (Chromium's default is en-US), which sets the time format. */
  locale?: string;
}

export interface MockApp {
  /** The configured origin (`http://localhost:<port>`). */
  baseUrl: string;
  web: StaticServer;
  newSession(options?: MockSessionOptions): Promise<MockSession>;
  close(): Promise<void>;
}

export async function startMockApp(): Promise<MockApp> {
  const web = await startStaticServer({ environments: [] });
  const baseUrl = web.url('localhost');
  web.setEnvironments({ environments: [mockEnvironment([baseUrl])] });
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    await web.close();
    throw e;
  }
  return {
    baseUrl,
    web,
    async newSession(options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? DESKTOP,
        ...(options.userAgent ? { userAgent: options.userAgent } : {}),
        ...(options.locale ? { locale: options.locale } : {}),
      });
      context.setDefaultTimeout(TIMEOUT_MS);
      if (options.termsAccepted ?? true) {
        await context.addCookies([{ name: 'acceptedTermsVersion', value: '3', url: baseUrl }]);
      }
      const api = await installMockBackend(
        context,
        options.account === undefined ? buildAccount() : options.account,
      );
      return { context, shell: new ShellPage(await context.newPage()), api };
    },
    async close() {
      await browser.close();
      await web.close();
    },
  };
}
