/**
 * The full-screen states (offline, maintenance, global error, configuration error, Internet Explorer) and
 * the sign-in redirects, against a mocked API and identity service.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@pm/testkit';
import { TIMEOUT_MS } from './pages/ShellPage.ts';
import { saveScreenshot } from './support/browser.ts';
import { type MockApp, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken, MOCK_ISSUER } from './support/mockBackend.ts';

let app: MockApp;
let baseUrl: string;

before(async () => {
  app = await startMockApp();
  baseUrl = app.baseUrl;
});

after(async () => {
  await app?.close();
});

const newSession = (options?: MockSessionOptions) => app.newSession(options);

describe('full-screen states', () => {
  it('offline when the API gives no response', async () => {
    const { context, shell, api } = await newSession();
    try {
      api.failWith = 'abort';
      await shell.open(baseUrl, '/', fakeAccessToken());
      const screen = await shell.waitForState('offline');
      assert.match(
        (await screen.textContent()) ?? '',
        /Can't connect to the server\. Check your Internet connection and reload the page\./,
      );
      assert.equal(await shell.page.getByTestId('support-contacts').count(), 0);
      await saveScreenshot(shell.page, 'state-offline');
    } finally {
      await context.close();
    }
  });

  it('a failed background refresh does not raise the offline state', async () => {
    const { context, shell, api } = await newSession();
    try {
      await shell.page.clock.install();
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      // The shop's own first calls must be answered before the API goes away.
      await shell.page.getByTestId('agent-row').first().waitFor();
      api.failWith = 'abort';
      const before = api.requests.length;
      await shell.page.clock.runFor(21_000);
      await waitFor(() => api.requests.length > before, {
        timeoutMs: 5000,
        what: 'the account is refreshed after 20 s',
      });
      await new Promise((r) => setTimeout(r, 300)); // sleeps: the failed refresh must not show offline; absence needs a window
      assert.equal(await shell.page.getByTestId('state-offline').count(), 0);
      await shell.waitForBalance('$12.34');
    } finally {
      await context.close();
    }
  });

  it('maintenance on 502, with the support contacts', async () => {
    const { context, shell, api } = await newSession();
    try {
      api.failWith = 502;
      await shell.open(baseUrl, '/', fakeAccessToken());
      const screen = await shell.waitForState('maintenance');
      assert.match((await screen.textContent()) ?? '', /down for quick maintenance/);
      assert.match((await screen.textContent()) ?? '', /check back in a minute/);
      assert.match((await screen.textContent()) ?? '', /support@example\.com/);
      assert.match((await screen.textContent()) ?? '', /@pm_support/);
      await saveScreenshot(shell.page, 'state-maintenance');
    } finally {
      await context.close();
    }
  });

  it('global error on 500, with the support contacts', async () => {
    const { context, shell, api } = await newSession();
    try {
      api.failWith = 500;
      await shell.open(baseUrl, '/', fakeAccessToken());
      const screen = await shell.waitForState('error');
      assert.match(
        (await screen.textContent()) ?? '',
        /We had an error\. Try reloading the page or contact us if that doesn't help\./,
      );
      assert.match((await screen.textContent()) ?? '', /support@example\.com/);
      await saveScreenshot(shell.page, 'state-error');
    } finally {
      await context.close();
    }
  });

  it('401 sends the visitor to the sign-in host', async () => {
    const { context, shell, api } = await newSession();
    try {
      api.failWith = 401;
      await shell.open(baseUrl, '/my', fakeAccessToken());
      await shell.page.waitForURL((u) => u.href.startsWith(`${MOCK_ISSUER}/auth`), { timeout: TIMEOUT_MS });
      const authorize = new URL(shell.page.url());
      assert.equal(authorize.searchParams.get('client_id'), 'web');
      assert.equal(authorize.searchParams.get('redirect_uri'), `${baseUrl}/callback`);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorize.searchParams.get('resource'), 'https://api.proxymarket.test');
      assert.match(authorize.searchParams.get('scope') ?? '', /openid email offline_access/);
    } finally {
      await context.close();
    }
  });

  it('without any user the visitor is sent to sign in', async () => {
    const { context, shell } = await newSession();
    try {
      await shell.open(baseUrl, '/payments');
      await shell.page.waitForURL((u) => u.href.startsWith(`${MOCK_ISSUER}/auth`), { timeout: TIMEOUT_MS });
    } finally {
      await context.close();
    }
  });

  it('configuration error for an origin that is not configured', async () => {
    const { context, shell } = await newSession();
    try {
      await shell.open(app.web.url('127.0.0.1'), '/', fakeAccessToken());
      const screen = await shell.waitForState('config-error');
      assert.equal(
        (await screen.textContent()) ?? '',
        "API configuration error: this site's address is not configured.",
      );
      await saveScreenshot(shell.page, 'state-config-error');
    } finally {
      await context.close();
    }
  });

  it('Internet Explorer is not supported', async () => {
    const { context, shell } = await newSession({
      userAgent: 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko',
    });
    try {
      await shell.open(baseUrl, '/');
      const screen = await shell.waitForState('unsupported-browser');
      assert.equal(
        (await screen.textContent()) ?? '',
        'Internet Explorer is not supported. Please use Chrome, Firefox or Edge.',
      );
    } finally {
      await context.close();
    }
  });
});
