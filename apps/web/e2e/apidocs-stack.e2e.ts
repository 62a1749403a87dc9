/**
 * The API page and the FAQ on the whole product (issue 27): a customer copies the token request and
 * the curl lines the API page shows (their own addresses and email), runs them in a shell and gets a
 * token and their leases; creates an API key on the page (shown once), lists proxies with it, revokes
 * it and is refused. The FAQ states the server's refund rule. Screens at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REFUND_WINDOW_MS } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser, Page } from 'playwright-core';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, signInOnStack } from './support/stackVisit.ts';

const run = promisify(execFile);

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_apidocs' }, (s, b) => {
  stack = s;
  browser = b;
});

/** Runs a copied curl line in bash with `$TOKEN` set; its stdout and the HTTP status (`-w`). */
async function shell(line: string, token = ''): Promise<{ status: number; body: string }> {
  const { stdout } = await run('bash', ['-c', `${line} -sS --max-time 10 -w '\\n%{http_code}'`], {
    env: { ...process.env, TOKEN: token },
  });
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

const codeOf = async (page: Page, label: string) =>
  (await page.getByLabel(label, { exact: true }).textContent()) ?? '';

async function openApiPage(viewport = DESKTOP) {
  const v = await openStackVisit(browser, stack, { viewport });
  await signInOnStack(v, stack, stack.demo.customer, '/api');
  await v.page.getByTestId('op-getToken').waitFor();
  return v;
}

describe('the API page on the whole product', () => {
  it('the copied token request and curl lines work from a shell', { timeout: 90_000 }, async () => {
    const v = await openApiPage();
    const tokenCurl = await codeOf(v.page, 'getToken curl');
    assert.ok(tokenCurl.includes(`username=${stack.demo.customer.email}`), 'the visitor’s own email');
    assert.ok(tokenCurl.includes(`${stack.issuer}/token`), 'the sign-in host of this environment');
    // The password grant's client is public: the page shows its id and no secret at all.
    assert.ok(tokenCurl.includes('client_id=public-api'), tokenCurl);
    assert.doesNotMatch(await v.page.locator('main').innerText(), /client_secret|CLIENT_SECRET/);
    assert.match(await v.page.getByTestId('api-keys-advice').innerText(), /For scripts, use an API key/);
    const got = await shell(tokenCurl.replace('YOUR_PASSWORD', stack.demo.customer.password));
    assert.equal(got.status, 200, got.body);
    const token = (JSON.parse(got.body) as { access_token: string }).access_token;

    const listCurl = await codeOf(v.page, 'listLeases curl');
    assert.ok(listCurl.includes(`${stack.apiUrl}/api/leases`), 'the API address of this environment');
    const leases = await shell(listCurl, token);
    assert.equal(leases.status, 200, leases.body);
    assert.ok(Array.isArray((JSON.parse(leases.body) as { leases: unknown[] }).leases));
    // Without the token: 403 (rules §7).
    assert.equal(
      (await shell(listCurl.replace(/ \\\n\s+-H "Authorization: Bearer \$TOKEN"/, ''))).status,
      403,
    );

    // Every public operation is documented with a curl line; the token request first.
    const ids = await v.page.locator('[data-testid^="op-"]').evaluateAll((els) => els.map((e) => e.id));
    assert.deepEqual(ids, [
      'getToken',
      'listAgents',
      'listLeases',
      'createLease',
      'refundLease',
      'setAutoRenew',
    ]);
    // What a lease's connection fields mean, from the document: the ports to dial are given in full.
    const fields = v.page.getByTestId('socks-fields');
    for (const name of ['socks.ports', 'socks.httpPort', 'socks.port']) {
      assert.ok(await fields.getByText(name, { exact: true }).isVisible(), name);
    }
    await saveScreenshot(v.page, 'api-page-desktop');
    await v.context.close();
  });

  it('at 390 px the token request shows no secret and the page recommends API keys', async () => {
    const v = await openApiPage(PHONE);
    const tokenCurl = await codeOf(v.page, 'getToken curl');
    assert.doesNotMatch(tokenCurl, /client_secret/);
    assert.ok(await v.page.getByTestId('api-keys-advice').isVisible());
    const width = await v.page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= PHONE.width, `no horizontal scroll (${width} px)`);
    await saveScreenshot(v.page, 'api-page-phone');
    await v.context.close();
  });

  it('an API key is shown once, works with the curl lines, and stops when revoked', {
    timeout: 90_000,
  }, async () => {
    const v = await openApiPage();
    await v.page.getByTestId('api-key-name').fill('e2e script');
    await v.page.getByRole('button', { name: 'Create key' }).click();
    const key = (await v.page.getByTestId('api-key-value').textContent()) ?? '';
    assert.match(key, /^pmk_/);
    const agentsCurl = await codeOf(v.page, 'listAgents curl');
    const ok = await shell(agentsCurl, key);
    assert.equal(ok.status, 200, ok.body);
    assert.ok(Array.isArray((JSON.parse(ok.body) as { agents: unknown[] }).agents));

    await v.page.reload();
    await v.page.getByTestId('op-getToken').waitFor();
    assert.equal(await v.page.getByTestId('api-key-created').count(), 0, 'shown only once');
    await v.page.getByRole('button', { name: 'Revoke e2e script' }).click();
    await v.page.getByText('No API keys yet.').waitFor();
    assert.equal((await shell(agentsCurl, key)).status, 401);
    await v.context.close();
  });

  it('a webhook endpoint is added (secret shown once), listed and removed', { timeout: 60_000 }, async () => {
    const v = await openApiPage();
    await v.page.getByTestId('webhook-url').fill('http://example.com/hook');
    await v.page.getByRole('button', { name: 'Add endpoint' }).click();
    await v.page.getByText('The URL must be an https:// URL').waitFor();
    await v.page.getByTestId('webhook-url').fill('https://example.com/hook');
    await v.page.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match((await v.page.getByTestId('webhook-secret').textContent()) ?? '', /whsec_/);
    await v.page.getByRole('button', { name: 'Remove https://example.com/hook' }).click();
    await v.page
      .getByRole('button', { name: 'Remove https://example.com/hook' })
      .waitFor({ state: 'detached' });
    await v.context.close();
  });

  it('on a phone the page fits the screen', { timeout: 60_000 }, async () => {
    const v = await openApiPage(PHONE);
    const overflow = await v.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
    await saveScreenshot(v.page, 'api-page-phone');
    // The first screen and a whole operation, as a phone shows them.
    await v.page.screenshot({ path: 'test-results/web/api-page-phone-top.png' });
    await v.page.getByTestId('op-createLease').scrollIntoViewIfNeeded();
    await v.page.screenshot({ path: 'test-results/web/api-page-phone-op.png' });
    await v.context.close();
  });
});

describe('the FAQ', () => {
  it('states the refund rule with the server’s values', { timeout: 60_000 }, async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'faq-desktop'],
      [PHONE, 'faq-phone'],
    ] as const) {
      const v = await openStackVisit(browser, stack, { viewport });
      await signInOnStack(v, stack, stack.demo.customer, '/faq');
      await v.page.getByRole('button', { name: 'Can I ask for a refund?' }).click();
      await v.page.getByText(`within the first ${REFUND_WINDOW_MS / 3_600_000} hours of a lease`).waitFor();
      await saveScreenshot(v.page, name);
      await v.context.close();
    }
  });
});
