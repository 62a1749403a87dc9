/**
 * Accounts that hold (issue 37) on the whole product, in a real browser: a customer turns on
 * two-factor sign-in from the app (QR code, a code made by otplib, recovery codes), the older
 * token dies on the API at once, the next sign-in asks for the code (desktop 1280 px and phone
 * 390 px), staff reset it from the admin area; and the `?token=` hand-off signs in only the tab
 * that started it, never through a link someone else made.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import { createTotpClient } from '@pm/devnet/totp-client';
import type { Browser, Page } from 'playwright-core';
import { TIMEOUT_MS } from './pages/ShellPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import {
  openStackVisit,
  type StackVisit,
  signInOnStack,
  stackApiWithToken,
  waitUntil,
} from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_accounts' }, (s, b) => {
  stack = s;
  browser = b;
});

/** The bearer token of the app's latest market API call in this visit. */
function watchBearer(v: StackVisit): () => string {
  let bearer = '';
  v.context.on('request', (r) => {
    const auth = r.headers().authorization;
    if (auth && r.url().startsWith(stack.apiUrl)) bearer = auth.replace(/^Bearer /, '');
  });
  return () => bearer;
}

const subOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub: string }).sub;

async function noHorizontalOverflow(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page overflows by ${overflow} px`);
}

describe('two-factor sign-in on the real stack', () => {
  it('a customer turns it on from the app; old tokens die; sign-in asks for the code; staff reset it', {
    timeout: 240_000,
  }, async () => {
    const who = { email: 'twofactor@example.com', password: 'two factor password' };
    const userId = await stack.addCustomer(who.email, who.password);
    const v = await openStackVisit(browser, stack);
    const bearer = watchBearer(v);
    let totp: ReturnType<typeof createTotpClient> | undefined;
    try {
      await signInOnStack(v, stack, who, '/shop');
      const before = bearer();
      assert.equal((await stackApiWithToken(stack, before, ENDPOINTS.getMyAccount)).status, 200);

      // Change Password holds the way to the sign-in host's settings; the password is asked again.
      await v.shell.chooseUserMenuItem('Change Password');
      await v.page.getByRole('button', { name: 'Two-factor sign-in' }).click();
      await v.identity.signIn(who.email, who.password);
      await v.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
      await v.page.locator('strong', { hasText: 'off' }).waitFor();
      await v.page.getByRole('link', { name: 'Turn on' }).click();
      await v.page.getByRole('heading', { name: 'Turn on two-factor sign-in' }).waitFor();
      await v.page.getByTestId('totp-qr').locator('svg').waitFor();
      await noHorizontalOverflow(v.page);
      await saveScreenshot(v.page, 'two-factor-enrol-desktop');
      const secret = (await v.page.getByTestId('totp-secret').textContent())?.trim() ?? '';
      assert.match(secret, /^[A-Z2-7]{32}$/);
      totp = createTotpClient(secret);

      await v.page.getByLabel('Code from the app').fill('000000');
      await v.page.getByRole('button', { name: 'Turn on' }).click();
      await v.page.getByRole('alert').getByText('That code does not match').waitFor();
      await v.page.getByLabel('Code from the app').fill(await totp.next());
      await v.page.getByRole('button', { name: 'Turn on' }).click();
      const codes = v.page.getByTestId('recovery-codes').locator('li');
      await codes.first().waitFor();
      assert.equal(await codes.count(), 10);
      await saveScreenshot(v.page, 'two-factor-recovery-codes-desktop');
      await v.page.getByRole('button', { name: 'I saved them, continue' }).click();
      await v.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
      await v.shell.balance.waitFor();
      assert.equal(new URL(v.page.url()).pathname, '/shop', 'back where the customer was');

      // The token from before the change is refused on the API within a second; the new one works.
      await waitUntil(
        async () => (await stackApiWithToken(stack, before, ENDPOINTS.getMyAccount)).status === 401,
        'the old token refused',
        1500,
      );
      await waitUntil(async () => bearer() !== before, 'the app calls with its new token');
      assert.equal((await stackApiWithToken(stack, bearer(), ENDPOINTS.getMyAccount)).status, 200);
    } finally {
      await v.context.close();
    }

    // A phone: the sign-in asks for the code after the password.
    const phone = await openStackVisit(browser, stack, { viewport: PHONE });
    try {
      await phone.page.goto(`${stack.webUrl}/my`);
      await phone.identity.signIn(who.email, who.password);
      await phone.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
      await noHorizontalOverflow(phone.page);
      await saveScreenshot(phone.page, 'two-factor-code-phone');
      await phone.page.getByLabel('Code').fill('123456');
      await phone.page.getByRole('button', { name: 'Verify' }).click();
      await phone.page.getByRole('alert').getByText('That code is not valid').waitFor();
      await phone.identity.enterCode(await (totp as ReturnType<typeof createTotpClient>).next());
      await phone.page.waitForURL((u) => u.href.startsWith(stack.webUrl), { timeout: TIMEOUT_MS });
      await phone.shell.waitForShell();
    } finally {
      await phone.context.close();
    }

    // Staff reset it (the user lost their phone), with a reason; the audit keeps it.
    const admin = await openStackVisit(browser, stack);
    try {
      await signInOnStack(admin, stack, stack.demo.admin, '/bigadmin');
      await admin.page.getByTestId('admin-email').fill(who.email);
      await admin.page.getByRole('button', { name: 'Find by e-mail' }).click();
      await admin.page.getByTestId('admin-two-factor').filter({ hasText: 'on' }).waitFor();
      assert.equal(await admin.page.getByTestId('admin-reset-2fa').isDisabled(), true, 'needs a reason');
      await admin.page.getByTestId('admin-reason').fill('lost phone, identity checked by video call');
      await admin.page.getByTestId('admin-reset-2fa').click();
      await admin.page.getByTestId('admin-done').waitFor();
      await admin.page.getByTestId('admin-two-factor').filter({ hasText: 'off' }).waitFor();
      await saveScreenshot(admin.page, 'two-factor-admin-reset');
      const adminToken = await stack.token(stack.demo.admin.email, stack.demo.admin.password);
      const audit = await stackApiWithToken(stack, adminToken, ENDPOINTS.listAuditEntries, {
        query: { target: userId, action: 'user.twoFactorReset' },
      });
      const row = audit.ok().items?.[0];
      assert.equal(row?.reason, 'lost phone, identity checked by video call', JSON.stringify(audit.body));
    } finally {
      await admin.context.close();
    }
  });
});

describe('the ?token= hand-off on the real stack', () => {
  it('signs in only the tab that started it; links made by someone else sign nobody in', {
    timeout: 180_000,
  }, async () => {
    const attacker = { email: 'attacker@example.com', password: 'attacker password' };
    const victim = { email: 'victim@example.com', password: 'victim password' };
    const attackerId = await stack.addCustomer(attacker.email, attacker.password);
    const victimId = await stack.addCustomer(victim.email, victim.password);

    // 1. A link with the attacker's own access token, opened by someone signed in nowhere.
    const attackerToken = await stack.token(attacker.email, attacker.password);
    const v1 = await openStackVisit(browser, stack);
    const calls1 = watchBearer(v1);
    try {
      await v1.page.goto(`${stack.webUrl}/payments?token=${attackerToken}`);
      await v1.identity.waitForSignIn();
      assert.equal(calls1(), '', 'the app never called the API with the crafted token');
    } finally {
      await v1.context.close();
    }

    // 2. A real hand-off code the attacker got in his own browser, sent as a link. His tab runs
    // without the service worker so that the way back, which carries the code, is seen here.
    const a = await openStackVisit(browser, stack, { noServiceWorker: true });
    let crafted = '';
    try {
      await signInOnStack(a, stack, attacker);
      // The way back carries the code: the attacker keeps the address, and his own tab never
      // redeems it, so the code is still good when he sends it.
      a.page.on('request', (r) => {
        const u = new URL(r.url());
        if (u.href.startsWith(stack.webUrl) && u.searchParams.has('token')) crafted = u.href;
      });
      await a.page.route(`${stack.issuer}/handoff/token`, (route) => route.abort());
      await a.page.goto(`${stack.webUrl}/?handoff=1`);
      await waitUntil(async () => crafted !== '', 'the attacker caught his code');
    } finally {
      await a.context.close();
    }
    const victimVisit = await openStackVisit(browser, stack);
    const calls = watchBearer(victimVisit);
    try {
      // The victim is signed in at the sign-in host (an earlier visit of the app in this browser).
      await signInOnStack(victimVisit, stack, victim, '/');
      const page = await victimVisit.context.newPage();
      await page.goto(crafted);
      await page.waitForURL((u) => u.href.startsWith(stack.webUrl) && !u.search.includes('token='));
      await page.getByTestId('balance').first().waitFor({ timeout: TIMEOUT_MS });
      const me = await stackApiWithToken(stack, calls(), ENDPOINTS.getMyAccount);
      assert.equal(me.ok().userID, victimId, 'still the victim, never the attacker');
      assert.notEqual(subOf(calls()), attackerId);

      // 3. The real flow: a link asks the app to start a hand-off; this tab ends signed in as the
      // user of this browser's sign-in session, with no token left in the address.
      const fresh = await victimVisit.context.newPage();
      await fresh.goto(`${stack.webUrl}/my?handoff=1`);
      await fresh.waitForURL((u) => u.href.startsWith(`${stack.webUrl}/my`) && u.search === '');
      await fresh.getByTestId('balance').first().waitFor({ timeout: TIMEOUT_MS });
      const stored = await fresh.evaluate(() => sessionStorage.getItem('pm.handoffToken'));
      assert.ok(stored, 'the hand-off left its token in this tab');
      assert.equal(subOf(stored), victimId);
      assert.equal((await stackApiWithToken(stack, stored, ENDPOINTS.getMyAccount)).status, 200);
    } finally {
      await victimVisit.context.close();
    }
  });
});
