/**
 * Add Funds after a paid charge, on the whole product (issue 36, item 2): the customer adds $20 in
 * LTC, closes the payment tab, pays the address through the chain simulator and, once the balance
 * has risen, opens Add Funds again. It must say the payment is paid with what was credited and offer
 * a new payment, never "You have an open payment: send the amount below…" (that invites paying
 * twice). Before the payment the same reopening shows the open charge. At 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENDPOINTS, type TChargePage } from '@pm/contracts';
import { startStack, type TestStack } from '@pm/devnet/stack';
import type { Browser, Page } from 'playwright-core';
import { AddFundsDialog } from './pages/AddFundsDialog.ts';
import { TIMEOUT_MS } from './pages/ShellPage.ts';
import { DESKTOP, launchBrowser, PHONE, saveScreenshot } from './support/browser.ts';
import { openStackVisit, type StackVisit, signInOnStack, stackApi, waitUntil } from './support/stackVisit.ts';

const OPEN_TEXT =
  'You have an open payment: send the amount below to the address below, or start a new payment.';
const PAID_TEXT =
  'Your last payment is paid: $20.00 was credited to your balance. Start a new payment to add more.';

let browser: Browser;
let stack: TestStack;

before(async () => {
  stack = await startStack({ label: 'web_e2e_funds_paid', paymentsWatchIntervalSeconds: 2 });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await stack?.close();
});

/** Opens Add Funds as the customer would: the balance's dialog on desktop, `/add-funds` on a phone. */
async function openAddFunds(v: StackVisit, isPhone: boolean): Promise<AddFundsDialog> {
  if (isPhone) {
    await v.page.goto(`${stack.webUrl}/add-funds`);
    await v.shell.waitForShell();
    return AddFundsDialog.onPage(v.page);
  }
  await v.page.getByRole('button', { name: 'Balance: add funds' }).click();
  return AddFundsDialog.dialog(v.page);
}

async function closeAddFunds(page: Page, isPhone: boolean): Promise<void> {
  if (isPhone) return;
  const dialog = page.getByRole('dialog', { name: 'Add Funds' });
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

async function waitUntilPaid(email: string, password: string, code: string): Promise<TChargePage> {
  let charge: TChargePage | undefined;
  await waitUntil(
    async () => {
      charge = (
        await stackApi(stack, { email, password }, ENDPOINTS.getChargePage, { params: { code } })
      ).ok();
      return charge.status === 'paid';
    },
    `charge ${code} credited`,
    TIMEOUT_MS * 2,
  );
  return charge as TChargePage;
}

describe('Add Funds after paying', () => {
  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    it(`says a paid charge is paid and offers a new payment, never "open" (${name})`, {
      timeout: 120_000,
    }, async () => {
      const isPhone = name === 'phone';
      const email = `funds.paid.${name}@example.com`;
      const password = 'a long enough password';
      await stack.addCustomer(email, password);
      const v = await openStackVisit(browser, stack, { viewport });
      try {
        await signInOnStack(v, stack, { email, password });
        await v.shell.waitForBalance('$0.00');
        let form = await openAddFunds(v, isPhone);
        await form.waitForForm();
        const chargeTab = await form.addFunds(v.context, '20', 'LTC');
        const code = chargeTab.code;
        const address = (await chargeTab.address.textContent()) ?? '';
        const amount = ((await chargeTab.amount.textContent()) ?? '').split(' ')[0] ?? '';
        // The customer closes the payment tab: nothing polls the charge to paid in this browser.
        await chargeTab.page.close();
        await closeAddFunds(v.page, isPhone);

        // Unpaid and unexpired: opening Add Funds again shows the open charge.
        form = await openAddFunds(v, isPhone);
        await form.created.getByText(OPEN_TEXT).waitFor();
        assert.equal(await form.created.getByTestId('created-address').textContent(), address);
        await saveScreenshot(v.page, `add-funds-open-${name}`);
        await closeAddFunds(v.page, isPhone);

        stack.chain.pay('ltc', address, amount);
        const paid = await waitUntilPaid(email, password, code);
        assert.equal(paid.creditedUsd, 2000);
        // The balance rises (a fresh page reads it at once rather than after the 20 s refresh); the
        // Payments page, since Add Funds itself would show the charge paid once and then forget it.
        await v.page.goto(`${stack.webUrl}/payments`);
        await v.shell.waitForBalance('$20.00');

        form = await openAddFunds(v, isPhone);
        const paidNotice = form.root.getByTestId('charge-paid');
        await paidNotice.waitFor();
        assert.equal((await paidNotice.getByRole('alert').textContent())?.trim(), PAID_TEXT);
        assert.equal(
          await form.root.getByText(OPEN_TEXT).count(),
          0,
          'the paid charge is not offered to pay again',
        );
        assert.equal(await form.root.getByTestId('created-address').count(), 0, 'no address to send to');
        await saveScreenshot(v.page, `add-funds-paid-${name}`);

        // A new payment: the form, and the paid charge is forgotten for good.
        await form.root.getByRole('button', { name: 'New payment' }).click();
        await form.waitForForm();
        await closeAddFunds(v.page, isPhone);
        form = await openAddFunds(v, isPhone);
        await form.waitForForm();
        assert.equal(await form.root.getByTestId('charge-paid').count(), 0);
        await saveScreenshot(v.page, `add-funds-new-${name}`);
      } finally {
        await v.context.close();
      }
    });
  }

  it('a charge kept from before that the server knows as paid is never shown as open, even for a moment', {
    timeout: 120_000,
  }, async () => {
    const email = 'funds.paid.kept@example.com';
    const password = 'a long enough password';
    await stack.addCustomer(email, password);
    const created = (
      await stackApi(stack, { email, password }, ENDPOINTS.createCharge, {
        body: { amount: 2000, type: 'ltc' },
      })
    ).ok();
    stack.chain.pay('ltc', created.address, created.amount);
    await waitUntilPaid(email, password, created.newChargeCode);
    const v = await openStackVisit(browser, stack, { viewport: DESKTOP });
    try {
      await signInOnStack(v, stack, { email, password });
      // What the form kept in this browser when it created the charge (chargeStore.ts).
      await v.page.evaluate((kept) => window.localStorage.setItem('pm.openCharge', JSON.stringify(kept)), {
        code: created.newChargeCode,
        currency: 'ltc',
        address: created.address,
        amountCrypto: created.amount,
        amountUsdC: 2000,
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      });
      let sawOpen = false;
      await v.page.exposeFunction('pmSawOpen', () => {
        sawOpen = true;
      });
      await v.page.evaluate((text) => {
        new MutationObserver(() => {
          if (document.body.innerText.includes(text))
            (window as unknown as { pmSawOpen(): void }).pmSawOpen();
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      }, OPEN_TEXT);
      const form = await openAddFunds(v, false);
      await form.root.getByTestId('charge-paid').waitFor();
      assert.equal(sawOpen, false, 'the open notice never appeared');
    } finally {
      await v.context.close();
    }
  });
});
