/**
 * The devnet webhook inbox on the whole product (issue 36): the market API lets webhooks reach the
 * inbox and no other private address; a ping to an endpoint a customer adds there shows up, and
 * verifies once its secret is pasted into the inbox page; after a devnet payment the demo
 * customer's `deposit.credited` delivery shows up there, signed with the secret its endpoint got
 * at start; the API page says the inbox is there and lists the delivery errors. Screens at 1280
 * and 390 px.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENDPOINTS, WEBHOOK_DELIVERY_ERRORS } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser, Page } from 'playwright-core';
import { TIMEOUT_MS } from './pages/ShellPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { stackSuite } from './support/stackSuite.ts';
import { openStackVisit, signInOnStack, stackApi, waitUntil } from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_webhook_inbox', paymentsWatchIntervalSeconds: 2 }, (s, b) => {
  stack = s;
  browser = b;
});

const customer = () => stack.demo.customer;

/** The inbox page in a fresh browser context at `viewport`. */
async function openInbox(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(TIMEOUT_MS);
  const page = await context.newPage();
  await page.goto(`${stack.webhookInbox.webUrl}/`);
  return page;
}

describe('the devnet webhook inbox on the whole product', () => {
  it('webhooks may reach the inbox and no other private address', { timeout: 90_000 }, async () => {
    const inbox = stack.webhookInbox;
    const inboxPort = new URL(inbox.origin).port;
    for (const url of [
      `${stack.apiUrl}/hook`, // the API itself, on loopback
      `${stack.apiUrl.replace('localhost', '127.0.0.1')}/hook`,
      inbox.hookUrl('x').replace('127.0.0.1', 'localhost'), // the inbox under another name
      `https://127.0.0.1:${inboxPort}/hooks/x`, // the inbox's address, another scheme
      `http://127.0.0.1:${Number(inboxPort) + 1}/hooks/x`,
      'http://10.0.0.1/hooks/x',
    ]) {
      const refused = await stackApi(stack, customer(), ENDPOINTS.createWebhook, { body: { url } });
      assert.equal(refused.status, 400, `${url}: ${JSON.stringify(refused.body)}`);
    }
    const hook = (
      await stackApi(stack, customer(), ENDPOINTS.createWebhook, { body: { url: inbox.hookUrl('mine') } })
    ).ok();
    try {
      const ping = await stackApi(stack, customer(), ENDPOINTS.pingWebhook, { params: { id: hook.id } });
      assert.equal(ping.status, 202);
      const got = await inbox.waitFor((d) => d.inbox === 'mine' && d.type === 'ping', 30_000);
      assert.equal(got.signature, 'no secret', 'the inbox cannot know a secret only its customer saw');

      // The customer pastes the secret into the inbox page: the ping verifies.
      const page = await openInbox(DESKTOP);
      try {
        const form = page.locator('#inbox-mine form');
        await form.getByLabel('Signing secret of this endpoint').fill(hook.secret);
        await form.getByRole('button', { name: 'Check signatures' }).click();
        await page.waitForURL(/#inbox-mine$/);
        const article = page.locator('article', { hasText: 'to mine' }).first();
        await article.getByText('Signature verified').waitFor();
      } finally {
        await page.context().close();
      }
    } finally {
      await stackApi(stack, customer(), ENDPOINTS.deleteWebhook, { params: { id: hook.id } });
    }
  });

  it('a devnet payment’s deposit.credited shows up in the inbox, its signature verified', {
    timeout: 120_000,
  }, async () => {
    const inbox = stack.webhookInbox;
    assert.ok(customer().webhook, 'the demo customer has an endpoint on the inbox');
    const charge = (
      await stackApi(stack, customer(), ENDPOINTS.createCharge, { body: { amount: 500, type: 'ltc' } })
    ).ok();
    stack.chain.pay('ltc', charge.address, charge.amount);
    await waitUntil(
      async () =>
        (
          await stackApi(stack, customer(), ENDPOINTS.getChargePage, {
            params: { code: charge.newChargeCode },
          })
        ).ok().status === 'paid',
      'the watcher credits the payment',
      30_000,
    );
    // The scan runs every minute; queue it now rather than wait for the cron's next minute.
    await stack.sendJob('webhooks.scan');
    const delivery = await inbox.waitFor((d) => d.inbox === 'demo' && d.type === 'deposit.credited', 30_000);
    assert.equal(delivery.signature, 'verified');
    const body = JSON.parse(delivery.body) as { type: string; data: { amountC: number } };
    assert.equal(body.data.amountC, 500);

    for (const [viewport, name] of [
      [DESKTOP, 'webhook-inbox-desktop'],
      [PHONE, 'webhook-inbox-phone'],
    ] as const) {
      const page = await openInbox(viewport);
      try {
        const article = page.locator('article[data-type="deposit.credited"]').first();
        await article.getByText('Signature verified').waitFor();
        assert.match((await article.locator('pre').textContent()) ?? '', /"amountC": 500/);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${name}: ${overflow}px wider than the screen`);
        await saveScreenshot(page, name);
      } finally {
        await page.context().close();
      }
    }
  });

  it('the API page says the inbox is there and what a failed delivery says', {
    timeout: 90_000,
  }, async () => {
    for (const [viewport, name] of [
      [DESKTOP, 'api-webhooks-inbox-desktop'],
      [PHONE, 'api-webhooks-inbox-phone'],
    ] as const) {
      const v = await openStackVisit(browser, stack, { viewport });
      try {
        await signInOnStack(v, stack, customer(), '/api');
        const note = v.page.getByTestId('webhook-inbox');
        await note.waitFor();
        const text = (await note.textContent()) ?? '';
        assert.ok(text.includes(`${stack.webhookInbox.origin}/hooks/NAME`), text);
        assert.ok(text.includes(`${stack.webhookInbox.webUrl}/`), text);
        const errors = (await v.page.getByTestId('webhook-errors').textContent()) ?? '';
        for (const e of Object.values(WEBHOOK_DELIVERY_ERRORS)) assert.ok(errors.includes(e), e);
        const overflow = await v.page.evaluate(
          () => document.documentElement.scrollWidth - window.innerWidth,
        );
        assert.ok(overflow <= 0, `${name}: ${overflow}px wider than the screen`);
        await saveScreenshot(v.page, name);
        // The card as the screen shows it, below the app bar.
        await note.scrollIntoViewIfNeeded();
        await v.page.evaluate(() => window.scrollBy(0, -160));
        await v.page.screenshot({ path: `test-results/web/${name}-card.png` });
      } finally {
        await v.context.close();
      }
    }
  });
});
