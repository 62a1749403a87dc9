/**
 * Journeys through the whole product (startStack: PostgreSQL, identity, API, web listener, mail catcher):
 * real sign-up, sign-in, sign-out, the admin gate, password change by mailed link, phone layout and the
 * full-screen states.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startStack, type TestStack } from '@pm/devnet/stack';
import { waitFor } from '@pm/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { IdentityPages } from './pages/IdentityPages.ts';
import { ShellPage, TIMEOUT_MS } from './pages/ShellPage.ts';
import { DESKTOP, launchBrowser, PHONE, saveScreenshot } from './support/browser.ts';
import { startStaticServer } from './support/staticServer.ts';

let browser: Browser;
let stack: TestStack;

before(async () => {
  stack = await startStack({ label: 'web_e2e' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

interface Visit {
  context: BrowserContext;
  page: Page;
  shell: ShellPage;
  identity: IdentityPages;
}

async function newVisit(viewport = DESKTOP): Promise<Visit> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(TIMEOUT_MS);
  const page = await context.newPage();
  return { context, page, shell: new ShellPage(page), identity: new IdentityPages(page, stack.issuer) };
}

/** Opens the app, signs in on the identity pages and waits for the shell with the given balance shown. */
async function signIn(v: Visit, email: string, password: string, path = '/'): Promise<void> {
  await v.page.goto(new URL(path, stack.webUrl).toString());
  await v.identity.signIn(email, password, await stack.totpCode(email));
  await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
  await v.shell.waitForShell();
  await v.shell.acceptTermsIfShown();
}

describe('with the whole product', () => {
  it('signs up on the identity pages, lands in the app with $0.00, accepts the Terms and logs out', async () => {
    const v = await newVisit();
    const tokenAnswers: Array<Promise<Record<string, unknown>>> = [];
    v.page.on('response', (r) => {
      if (r.url() === `${stack.issuer}/token` && r.request().method() === 'POST') tokenAnswers.push(r.json());
    });
    try {
      await v.page.goto(stack.webUrl);
      await v.identity.signUp('new.customer@example.com', 'a long enough password');
      const confirm = await stack.mail.waitFor('new.customer@example.com', (m) =>
        m.subject.startsWith('Confirm'),
      );
      await v.identity.confirmEmail(confirm.text);
      await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
      const terms = v.page.getByRole('dialog', { name: 'Terms and Conditions' });
      await terms.waitFor();
      await v.page.keyboard.press('Escape');
      assert.equal(await terms.isVisible(), true, 'the Terms modal blocks until Accept');
      await terms.getByRole('button', { name: 'Accept' }).click();
      await terms.waitFor({ state: 'hidden' });
      await v.shell.waitForBalance('$0.00');
      // Code + PKCE gave a rotating refresh token (silent renew) and an access token for the market API.
      const [tokens] = await Promise.all(tokenAnswers);
      assert.equal(typeof tokens?.refresh_token, 'string');
      const claims = JSON.parse(
        Buffer.from(String(tokens?.access_token).split('.')[1] ?? '', 'base64url').toString(),
      );
      const { environments } = (await (await fetch(`${stack.webUrl}/environments.json`)).json()) as {
        environments: Array<{ audience: string }>;
      };
      assert.equal(claims.aud, environments[0]?.audience);
      const menu = await v.shell.openUserMenu();
      await menu.getByText('new.customer@example.com').waitFor();
      await saveScreenshot(v.page, 'stack-signed-up');
      await menu.getByRole('menuitem', { name: 'Logout' }).click();
      // Back on the product's own site without a user: the visitor is sent to sign in again.
      await v.identity.waitForSignIn();
    } finally {
      await v.context.close();
    }
  });

  it('Logout ends the session at the sign-in host and lands on the product site without a question', async () => {
    const v = await newVisit();
    const { email, password } = stack.demo.customer;
    const visited: string[] = [];
    v.page.on('framenavigated', (frame) => {
      if (frame === v.page.mainFrame()) visited.push(frame.url());
    });
    try {
      await signIn(v, email, password, '/payments');
      visited.length = 0;
      await v.shell.logout();
      // No click on the sign-in host: it signs out and sends the browser to the product's site,
      // whose app, with no user now, sends it on to sign in.
      await v.identity.waitForSignIn();
      assert.ok(visited.includes(`${stack.webUrl}/`), `pages seen: ${visited.join(' ')}`);
      assert.equal(await v.page.getByText('Do you want to sign out?').count(), 0);
      // The session really ended: the app's pages ask for the password again.
      await v.page.goto(`${stack.webUrl}/my`);
      await v.identity.waitForSignIn();
      // The sign-in page's favicon loads.
      const icon = await v.page.locator('link[rel="icon"]').getAttribute('href');
      const res = await v.page.request.get(new URL(icon ?? '/missing', v.page.url()).href);
      assert.equal(res.status(), 200);
      assert.match(res.headers()['content-type'] ?? '', /^image\//);
      await v.identity.signIn(email, password);
      await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
      await v.shell.waitForShell();
      assert.equal(new URL(v.page.url()).pathname, '/my');
    } finally {
      await v.context.close();
    }
  });

  it('a route with dots in its parameter loads directly and on reload', async () => {
    const v = await newVisit(PHONE);
    const path = '/my/history-details/203.0.113.7';
    try {
      await signIn(v, stack.demo.customer.email, stack.demo.customer.password, path);
      assert.equal(new URL(v.page.url()).pathname, path);
      await v.shell.screenTitle.filter({ hasText: 'History Details' }).waitFor();
      await v.page.reload();
      await v.shell.screenTitle.filter({ hasText: 'History Details' }).waitFor();
      assert.equal(new URL(v.page.url()).pathname, path);
    } finally {
      await v.context.close();
    }
  });

  it('the admin area opens for the demo admin and says ACCESS DENIED to the customer', async () => {
    const admin = await newVisit();
    try {
      await signIn(admin, stack.demo.admin.email, stack.demo.admin.password, '/bigadmin');
      assert.equal(new URL(admin.page.url()).pathname, '/bigadmin', 'sign-in returns to the page asked for');
      await admin.page.getByRole('tab', { name: 'User Info' }).waitFor();
      assert.equal(await admin.page.getByText('ACCESS DENIED').count(), 0);
    } finally {
      await admin.context.close();
    }
    const customer = await newVisit();
    try {
      await signIn(customer, stack.demo.customer.email, stack.demo.customer.password, '/bigadmin');
      await customer.shell.text('ACCESS DENIED').waitFor();
    } finally {
      await customer.context.close();
    }
  });

  it('changes the password through the mailed link', async () => {
    const v = await newVisit();
    const { email, password } = stack.demo.customer;
    const newPassword = `${password}-changed`;
    try {
      await signIn(v, email, password);
      await v.shell.chooseUserMenuItem('Change Password');
      await v.page.getByRole('button', { name: 'Send Email' }).click();
      await v.shell.text('Password change email has been sent').waitFor();
      const mail = await stack.mail.waitFor(email, (m) => /password/i.test(m.subject), TIMEOUT_MS);
      const link = /https?:\/\/\S+reset-password\?token=[\w-]+/.exec(mail.text)?.[0];
      assert.ok(link, `no reset link in: ${mail.text}`);
      await v.identity.setNewPassword(link, newPassword);
      await v.page
        .getByText(/password/i)
        .first()
        .waitFor();
    } finally {
      await v.context.close();
    }
    const again = await newVisit();
    try {
      await signIn(again, email, newPassword);
      await again.page.getByTestId('balance').first().waitFor();
      stack.demo.customer.password = newPassword;
    } finally {
      await again.context.close();
    }
  });

  it('a 390 px phone shows the side menu and the screen titles', async () => {
    const v = await newVisit(PHONE);
    try {
      await signIn(v, stack.demo.customer.email, stack.demo.customer.password);
      await v.page.waitForURL((u) => u.pathname === '/shop');
      assert.equal(await v.shell.screenTitle.textContent(), 'Proxy Default');
      const menu = await v.shell.openSideMenu();
      await menu.getByText(stack.demo.customer.email).waitFor();
      await saveScreenshot(v.page, 'stack-phone-menu');
      await menu.getByRole('button', { name: 'Add Funds' }).click();
      await v.shell.screenTitle.filter({ hasText: 'Add Funds' }).waitFor();
      await v.page.getByRole('button', { name: 'Back' }).waitFor();
    } finally {
      await v.context.close();
    }
  });

  it('an origin that is not configured shows the configuration error', async () => {
    const v = await newVisit();
    try {
      await v.page.goto(stack.unknownOriginWebUrl);
      const screen = await v.shell.waitForState('config-error');
      assert.equal(
        await screen.textContent(),
        "API configuration error: this site's address is not configured.",
      );
    } finally {
      await v.context.close();
    }
  });

  it('maintenance on 502 and the global error on 500 from the API', async () => {
    for (const [status, state] of [
      [502, 'maintenance'],
      [500, 'error'],
    ] as const) {
      const v = await newVisit();
      try {
        await signIn(v, stack.demo.customer.email, stack.demo.customer.password);
        const cors = {
          'access-control-allow-origin': stack.webUrl,
          'access-control-allow-headers': 'authorization, content-type, accept',
          'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        };
        await v.page.route(`${stack.apiUrl}/**`, (route) =>
          route.request().method() === 'OPTIONS'
            ? route.fulfill({ status: 204, headers: cors })
            : route.fulfill({
                status,
                headers: { ...cors, 'content-type': 'application/json' },
                body: '{"error":"INTERNAL","message":"injected"}',
              }),
        );
        await v.page.reload();
        const screen = await v.shell.waitForState(state);
        assert.match((await screen.textContent()) ?? '', /support@example\.com/);
      } finally {
        await v.context.close();
      }
    }
  });

  it('renews the access token silently with the rotating refresh token', async () => {
    const v = await newVisit();
    const grants: string[] = [];
    v.page.on('request', (r) => {
      if (r.url() === `${stack.issuer}/token`)
        grants.push(new URLSearchParams(r.postData() ?? '').get('grant_type') ?? '');
    });
    const bearers: string[] = [];
    v.page.on('request', (r) => {
      if (r.url().startsWith(stack.apiUrl) && r.method() === 'GET') {
        const auth = r.headers().authorization;
        if (auth) bearers.push(auth);
      }
    });
    let tokenAnswers = 0;
    v.page.on('response', (r) => {
      if (r.url() === `${stack.issuer}/token` && r.status() === 200) tokenAnswers++;
    });
    // What the page asked of the API and the issuer, printed if the test fails (CI has seen it fail
    // rarely under load, never here: this shows which step was missing).
    const trail: string[] = [];
    const started = Date.now();
    const note = (what: string, url: string, extra = '') => {
      if (url.startsWith(stack.apiUrl) || url.startsWith(stack.issuer))
        trail.push(`${Date.now() - started} ms ${what} ${new URL(url).pathname} ${extra}`);
    };
    v.page.on('request', (r) => note(r.method(), r.url(), (r.headers().authorization ?? '').slice(-10)));
    v.page.on('response', (r) => note(`answer ${r.status()}`, r.url()));
    v.page.on('requestfailed', (r) => note('failed', r.url(), r.failure()?.errorText));
    v.page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        trail.push(`${Date.now() - started} ms console ${m.text()}`);
    });
    try {
      await v.page.clock.install();
      await signIn(v, stack.demo.customer.email, stack.demo.customer.password);
      await v.page.getByTestId('balance').first().waitFor();
      assert.deepEqual(grants, ['authorization_code']);
      const firstBearer = bearers[0];
      // Access tokens live 5 minutes; renewal starts a minute before they expire.
      await v.page.clock.runFor(250_000);
      await waitFor(() => tokenAnswers >= 2, { timeoutMs: TIMEOUT_MS, intervalMs: 100, what: 'the renewal' });
      assert.deepEqual(grants, ['authorization_code', 'refresh_token']);
      assert.equal(tokenAnswers, 2);
      // A later account refresh carries the new token, and the API accepts it. The app stores the
      // token once it has read the answer, which on a busy machine can come after the next refresh
      // has gone out (with the old token, still valid): move on a refresh interval at a time.
      // A busy machine may take a while to answer: twice the usual wait, from here.
      await waitFor(
        async () => {
          if (bearers.at(-1) !== firstBearer) return true;
          await v.page.clock.runFor(21_000);
          return false;
        },
        { timeoutMs: 2 * TIMEOUT_MS, intervalMs: 300, what: 'a refresh with the new token' },
      ).catch(() => {}); // the trail is printed below
      if (bearers.at(-1) === firstBearer) console.log(`page trail:\n${trail.join('\n')}`);
      assert.notEqual(bearers.at(-1), firstBearer);
      await v.page.waitForTimeout(500); // sleeps: no error may show; absence needs a window
      assert.equal(await v.page.getByTestId('state-error').count(), 0);
      assert.equal(new URL(v.page.url()).origin, stack.webUrl);
    } finally {
      await v.context.close();
    }
  });

  // Last: it stops the API (and with it the web listener) for the rest of the file.
  it('offline when the API is stopped', async () => {
    const first = await newVisit();
    let signedIn: Awaited<ReturnType<BrowserContext['storageState']>>;
    let environments: unknown;
    try {
      await signIn(first, stack.demo.customer.email, stack.demo.customer.password);
      await first.page.getByTestId('balance').first().waitFor();
      environments = await first.page.evaluate(async () => (await fetch('/environments.json')).json());
      signedIn = await first.context.storageState();
    } finally {
      // Closing the browser drops its pre-connected sockets, which would hold the API's shutdown for a minute.
      await first.context.close();
      await browser.close();
    }
    await stack.stopApi();
    browser = await launchBrowser();
    // The web listener stops with the API; serve the same files on the same address so the page can load.
    const web = await startStaticServer(environments, Number(new URL(stack.webUrl).port));
    const context = await browser.newContext({ viewport: DESKTOP, storageState: signedIn });
    try {
      context.setDefaultTimeout(TIMEOUT_MS);
      const shell = new ShellPage(await context.newPage());
      // The identity session signs the visitor in again at once; then the API does not answer.
      await shell.open(stack.webUrl, '/');
      const screen = await shell.waitForState('offline');
      assert.equal(
        await screen.textContent(),
        "Can't connect to the server. Check your Internet connection and reload the page.",
      );
      await saveScreenshot(shell.page, 'stack-offline');
    } finally {
      await context.close();
      await web.close();
    }
  });
});
