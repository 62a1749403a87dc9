/**
 * Journeys through the app shell against a mocked API and identity service (page routes), served from the
 * built dist by a static server: desktop menus and dialogs, the Terms modal and the phone layout.
 * Full-screen states are in states.e2e.ts; the full-stack journeys in stack.e2e.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { type MockApp, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { buildAccount, fakeAccessToken, MOCK_ISSUER } from './support/mockBackend.ts';

const ADMIN_PERMISSIONS = ['read:users', 'update:accounts'];

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

describe('desktop shell', () => {
  it('takes the hand-off token out of the address, shows the balance, tabs and user menu', async () => {
    const { context, shell, api } = await newSession();
    try {
      const token = fakeAccessToken();
      await shell.open(baseUrl, '/', token);
      await shell.waitForBalance('$12.34');
      assert.equal(new URL(shell.page.url()).search, '', 'the token must leave the address at once');
      assert.equal(api.requests[0]?.authorization, `Bearer ${token}`);
      for (const tab of ['Shop', 'My Proxies', 'Payments', 'Downloads', 'API', 'FAQ']) {
        assert.equal(await shell.page.getByRole('tab', { name: tab, exact: true }).count(), 1, tab);
      }
      await shell.page.getByTestId('agent-row').first().waitFor();
      // The location data's licence (CC BY 4.0) asks for a credit on the site.
      assert.equal(
        await shell.page.getByRole('link', { name: 'IP Geolocation by DB-IP' }).getAttribute('href'),
        'https://db-ip.com',
      );
      await saveScreenshot(shell.page, 'desktop-shop');

      const menu = await shell.openUserMenu();
      const items = await menu.getByRole('menuitem').allTextContents();
      assert.deepEqual(items, [
        'customer@example.com',
        'Add Funds',
        'Referral',
        'Terms and Conditions',
        'Privacy Policy',
        'Change Password',
        'Logout',
      ]);
      assert.equal(
        await menu.getByRole('menuitem', { name: 'customer@example.com' }).getAttribute('aria-disabled'),
        'true',
      );
      await saveScreenshot(shell.page, 'desktop-user-menu');
      await shell.page.keyboard.press('Escape');

      await shell.page.getByRole('tab', { name: 'My Proxies' }).click();
      await shell.page.getByRole('heading', { name: 'My Proxies' }).waitFor();
      assert.equal(new URL(shell.page.url()).pathname, '/my');
    } finally {
      await context.close();
    }
  });

  it('creates the account with PUT /accounts/my when it does not exist yet', async () => {
    const { context, shell, api } = await newSession({ account: null });
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$0.00');
      // The shop's own calls run alongside; the account's are these three, in this order.
      const calls = api.requests.filter((r) => r.path === '/accounts/my').map((r) => `${r.method} ${r.path}`);
      assert.deepEqual(calls.slice(0, 3), ['GET /accounts/my', 'PUT /accounts/my', 'GET /accounts/my']);
    } finally {
      await context.close();
    }
  });

  it('add funds: under review without DEPOSIT, the form with validation with it', async () => {
    const { context, shell, api } = await newSession();
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.page.getByRole('button', { name: 'Balance: add funds' }).click();
      await shell.text('Your account is under review').waitFor();
      await shell
        .text(
          "You can't add funds until your account is reviewed. Please allow 24 hours for the approval of a new account.",
        )
        .waitFor();
      await saveScreenshot(shell.page, 'desktop-add-funds-under-review');
      await shell.page.getByRole('button', { name: 'Close' }).click();

      api.account = buildAccount({ permissions: ['DEPOSIT'] });
      await shell.page.reload();
      await shell.waitForBalance('$12.34');
      await shell.chooseUserMenuItem('Add Funds');
      const dialog = shell.page.getByRole('dialog');
      const amount = dialog.getByRole('textbox', { name: 'Amount in US dollars' });
      const submit = dialog.getByRole('button', { name: 'Add Funds' });
      assert.equal(await amount.inputValue(), '5');
      assert.equal(await submit.isEnabled(), true);
      await amount.fill('4');
      assert.equal(await submit.isEnabled(), false);
      await dialog.getByRole('combobox').click();
      await shell.page.getByRole('option', { name: 'USDT TRC20' }).click();
      assert.equal(await amount.inputValue(), '10');
      await amount.fill('abc');
      assert.equal(await submit.isEnabled(), false);
      assert.equal(await amount.getAttribute('aria-invalid'), 'true');
      await amount.fill('25');
      await saveScreenshot(shell.page, 'desktop-add-funds-form');
      // The charge page opens in a new tab (add-funds.e2e.ts has the whole journey).
      const [tab] = await Promise.all([context.waitForEvent('page'), submit.click()]);
      await tab.waitForURL((u) => u.pathname.startsWith('/charges/'));
    } finally {
      await context.close();
    }
  });

  it('change password: sends the e-mail request and shows the snackbars', async () => {
    const { context, shell, api } = await newSession();
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      await shell.chooseUserMenuItem('Change Password');
      await shell.page.getByRole('dialog').getByText('customer@example.com').waitFor();
      await saveScreenshot(shell.page, 'desktop-change-password');
      await shell.page.getByRole('button', { name: 'Send Email' }).click();
      await shell.text('Password change email has been sent').waitFor();
      assert.deepEqual(api.passwordChanges, [{ email: 'customer@example.com' }]);

      api.passwordChangeStatus = 500;
      await shell.chooseUserMenuItem('Change Password');
      await shell.page.getByRole('button', { name: 'Send Email' }).click();
      await shell.text('Password change failed, please try again or contact support').waitFor();
      // A failed identity call is not an API failure: the app stays usable.
      assert.equal(await shell.page.getByTestId('state-error').count(), 0);
    } finally {
      await context.close();
    }
  });

  it('referral: shows the invite link and copies it', async () => {
    const { context, shell } = await newSession();
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.chooseUserMenuItem('Referral');
      const link = shell.page.getByTestId('invite-link');
      assert.equal(await link.textContent(), `${MOCK_ISSUER}/signup?ref=REF123`);
      await link.click();
      await shell.text('Copied to clipboard').waitFor();
      assert.equal(
        await shell.page.evaluate(() => navigator.clipboard.readText()),
        `${MOCK_ISSUER}/signup?ref=REF123`,
      );
      await saveScreenshot(shell.page, 'desktop-referral');
    } finally {
      await context.close();
    }
  });

  it('admin area: ACCESS DENIED without the staff permissions, tabs with them', async () => {
    const customer = await newSession();
    try {
      await customer.shell.open(baseUrl, '/bigadmin', fakeAccessToken());
      await customer.shell.text('ACCESS DENIED').waitFor();
    } finally {
      await customer.context.close();
    }
    const admin = await newSession();
    try {
      await admin.shell.open(baseUrl, '/bigadmin', fakeAccessToken(ADMIN_PERMISSIONS));
      await admin.shell.page.getByRole('tab', { name: 'User Info' }).waitFor();
      for (const tab of ['User Balance', 'Lease Info', 'Transaction Info', 'User Payments']) {
        assert.equal(await admin.shell.page.getByRole('tab', { name: tab }).count(), 1, tab);
      }
      assert.equal(await admin.shell.page.getByText('ACCESS DENIED').count(), 0);
      await saveScreenshot(admin.shell.page, 'desktop-admin');
    } finally {
      await admin.context.close();
    }
  });

  it('every route of the spec renders inside the layout', async () => {
    const { context, shell } = await newSession();
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.waitForBalance('$12.34');
      const routes: Array<[string, string]> = [
        ['/shop', 'Shop'],
        ['/shop/a1', 'Proxy Details'],
        ['/my', 'My Proxies'],
        ['/my/history', 'Lease History'],
        ['/my/l1', 'Proxy Details'],
        ['/my/history-details/203.0.113.9', 'History Details'],
        ['/payments', 'Payments'],
        ['/faq', 'FAQ'],
        ['/api', 'API'],
        ['/download', 'Downloads'],
        ['/charges/tx1', 'Payment'],
        ['/change-password', 'Change Password'],
        ['/referral', 'Referral'],
        ['/add-funds', 'Add Funds'],
        ['/filter', 'Filter'],
        ['/confirm-purchase', 'Confirm Purchase'],
        ['/terms', 'Terms and Conditions'],
        ['/privacy', 'Privacy Policy'],
      ];
      for (const [path, heading] of routes) {
        await shell.page.evaluate((p) => {
          window.history.pushState(null, '', p);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await shell.page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      }
      await saveScreenshot(shell.page, 'desktop-privacy');
      const privacy = shell.page.getByTestId('legal-copy');
      await privacy.getByText('We do not record the content or the destinations').waitFor();
      await shell.page.evaluate(() => {
        window.history.pushState(null, '', '/terms');
        window.dispatchEvent(new PopStateEvent('popstate'));
      });
      // The template states the product's real rules, with no note to customers that it is a placeholder.
      const terms = shell.page.getByTestId('legal-copy');
      await terms.getByText(/The balance is not refundable/).waitFor();
      await terms
        .getByText(/40% or more of at least 10 requests in the last hour fail because of the proxy itself/)
        .waitFor();
      await terms
        .getByText(/Static proxies are refunded within 1 hour of purchase and only if unused/)
        .waitFor();
      assert.doesNotMatch(await shell.page.locator('main').innerText(), /placeholder/i);
      await saveScreenshot(shell.page, 'desktop-terms');
    } finally {
      await context.close();
    }
  });
});

describe('terms', () => {
  it('the Terms modal blocks until Accept and is remembered in a cookie', async () => {
    const { context, shell } = await newSession({ termsAccepted: false });
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      const modal = shell.page.getByRole('dialog', { name: 'Terms and Conditions' });
      await modal.waitFor();
      await saveScreenshot(shell.page, 'desktop-terms-modal');
      await shell.page.keyboard.press('Escape');
      await shell.page.mouse.click(20, 780);
      assert.equal(await modal.isVisible(), true, 'Escape and backdrop clicks must not close it');
      await modal.getByRole('button', { name: 'Accept' }).click();
      await modal.waitFor({ state: 'hidden' });
      const cookies = await context.cookies(baseUrl);
      assert.equal(cookies.find((c) => c.name === 'acceptedTermsVersion')?.value, '3');
      await shell.page.reload();
      await shell.waitForBalance('$12.34');
      assert.equal(await shell.page.getByRole('dialog').count(), 0);
    } finally {
      await context.close();
    }
  });

  it('shows again when an older version was accepted', async () => {
    const { context, shell } = await newSession({ termsAccepted: false });
    try {
      await context.addCookies([{ name: 'acceptedTermsVersion', value: '2', url: baseUrl }]);
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.page.getByRole('dialog', { name: 'Terms and Conditions' }).waitFor();
    } finally {
      await context.close();
    }
  });
});

describe('phone layout (390 px)', () => {
  it('redirects / to /shop, shows screen titles, the side menu and back arrows', async () => {
    const { context, shell } = await newSession({
      viewport: PHONE,
      account: buildAccount({ permissions: ['DEPOSIT'] }),
    });
    try {
      await shell.open(baseUrl, '/', fakeAccessToken());
      await shell.page.waitForURL((u) => u.pathname === '/shop');
      await shell.waitForBalance('$12.34');
      assert.equal(await shell.screenTitle.textContent(), 'Proxy Default');
      assert.equal(await shell.page.getByRole('tab').count(), 0, 'no desktop tabs on a phone');
      await saveScreenshot(shell.page, 'phone-shop');

      const menu = await shell.openSideMenu();
      const labels = await menu.getByRole('button').allTextContents();
      assert.deepEqual(labels, [
        'Shop',
        'Static Proxies',
        'My Proxies',
        'Ports',
        'Payments',
        'FAQ',
        'Add Funds',
        'Change Password',
        'Logout',
        'Terms and Conditions',
        'Privacy Policy',
      ]);
      assert.equal(await menu.getByTestId('drawer-email').textContent(), 'customer@example.com');
      await menu.getByText('$12.34').waitFor();
      await saveScreenshot(shell.page, 'phone-side-menu');
      await menu.getByRole('button', { name: 'Change Password' }).click();
      await shell.page.waitForURL((u) => u.pathname === '/change-password');
      await shell.screenTitle.filter({ hasText: 'Change Password' }).waitFor();
      await shell.page.getByRole('button', { name: 'Back' }).click();
      await shell.page.waitForURL((u) => u.pathname === '/shop');

      await shell.page.getByRole('link', { name: 'Balance: add funds' }).click();
      await shell.page.waitForURL((u) => u.pathname === '/add-funds');
      await shell.screenTitle.filter({ hasText: 'Add Funds' }).waitFor();
      await shell.page.getByRole('textbox', { name: 'Amount in US dollars' }).waitFor();
      await saveScreenshot(shell.page, 'phone-add-funds');

      const titles: Array<[string, string]> = [
        ['/shop/a1', 'Proxy Details'],
        ['/my/l1', 'Proxy Details'],
        ['/my/history-details/203.0.113.9', 'History Details'],
        ['/confirm-purchase', 'Confirm Purchase'],
        ['/filter', 'Filter'],
      ];
      for (const [path, title] of titles) {
        await shell.page.evaluate((p) => {
          window.history.pushState(null, '', p);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, path);
        await shell.screenTitle.filter({ hasText: title }).waitFor();
        assert.equal(await shell.page.getByRole('button', { name: 'Back' }).count(), 1, path);
      }
      await shell.page.getByRole('button', { name: 'Reset' }).waitFor();
      await saveScreenshot(shell.page, 'phone-filter');
    } finally {
      await context.close();
    }
  });
});
