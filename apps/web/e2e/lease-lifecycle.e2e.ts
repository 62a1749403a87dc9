/**
 * Renew and refund against a mocked market API (issue 19): from the desktop Proxy Details popup and
 * the phone's lease detail, each renew outcome and each refund outcome, and the static lease's
 * refund instructions.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { TLease } from '@pm/contracts';
import { LEASE_TRAFFIC_CSV_HEADER } from '@pm/contracts';
import {
  LeaseLifecycleDialogs,
  REFUND_CANCELED_MESSAGES,
  RENEW_MESSAGES,
} from './pages/LeaseLifecycleDialogs.ts';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { demoTraffic } from './support/lifecycleMock.ts';
import { buildLease, isCall, waitForCall } from './support/marketMock.ts';
import { type MockApp, type MockSession, type MockSessionOptions, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

interface Visit extends MockSession {
  my: MyProxiesPage;
  dialogs: LeaseLifecycleDialogs;
  /** Renewable and refundable (private, agent-2), and a static one. */
  lease: TLease;
  staticLease: TLease;
}

async function visit(options: MockSessionOptions = {}): Promise<Visit> {
  const session = await app.newSession(options);
  const { market } = session.api;
  const agent = market.agents.find((a) => a.id === 'agent-2')!;
  const lease = buildLease(agent, {
    exc: true,
    renewable: true,
    purchasePriceC: agent.priceExcC,
    stats: { reqs: 3, failPct: 100, authFails: 0, inBytes: 900, outBytes: 0, refundable: true },
  });
  const staticLease = buildLease(market.agents.find((a) => a.id === 'agent-8')!, {
    static: true,
    exc: true,
    stats: { reqs: 0, failPct: 0, authFails: 0, inBytes: 0, outBytes: 0, refundable: true },
  });
  market.leases.push(lease, staticLease);
  const my = new MyProxiesPage(session.shell.page);
  return {
    ...session,
    my,
    dialogs: new LeaseLifecycleDialogs(session.shell.page, my.detail),
    lease,
    staticLease,
  };
}

const renewAnswer = (status: number) => ({ status, body: { error: 'MOCK', message: 'refused' } });

describe('desktop Proxy Details: renew', () => {
  it('renews (price in the confirmation, balance and lease refreshed), then says no funds, then failed', async () => {
    const { context, shell, my, dialogs, api, lease } = await visit();
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(lease.currentInfo.ip);
      await shell.waitForBalance('$12.34');
      const confirmText = await dialogs.renew();
      assert.match(confirmText, /another 24 hours for \$3\.00/);
      const ok = await dialogs.renewMessage(RENEW_MESSAGES.success);
      await waitForCall(market, isCall('PATCH', `/leases/${lease.id}`));
      await saveScreenshot(my.page, 'lifecycle-renew-success-desktop');
      await dialogs.close(ok);
      await shell.waitForBalance('$9.34');
      // The renewed lease is no longer renewable (the list was reloaded).
      await dialogs.renewButton.and(my.page.locator('[disabled]')).waitFor();

      market.leases[0]!.renewable = true;
      market.lifecycle.renewAnswers.push(renewAnswer(402));
      await my.page.reload();
      await my.selectLease(lease.currentInfo.ip);
      await dialogs.renew();
      const funds = await dialogs.renewMessage(RENEW_MESSAGES.notEnoughFunds);
      await saveScreenshot(my.page, 'lifecycle-renew-funds-desktop');
      await funds.getByRole('button', { name: 'Add Funds' }).click();
      await my.page.getByRole('dialog', { name: 'Add Funds' }).waitFor();
      await my.page.keyboard.press('Escape');

      market.lifecycle.renewAnswers.push(renewAnswer(409));
      await dialogs.renew();
      await dialogs.close(await dialogs.renewMessage(RENEW_MESSAGES.failed));
      assert.equal(await shell.page.getByTestId('state-error').count(), 0, 'no global error');
    } finally {
      await context.close();
    }
  });
});

describe('desktop Proxy Details: refund', () => {
  it('shows each Refund Canceled text, then refunds: balance, leases and payments reload', async () => {
    const { context, shell, my, dialogs, api, lease } = await visit();
    const { market } = api;
    const refused = (status: number, errorCode: string) => ({
      status,
      body: { error: 'MOCK', message: 'no', errorCode },
    });
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(lease.currentInfo.ip);

      market.lifecycle.refundAnswers.push(refused(400, 'leaseNotEligible'));
      const confirmText = await dialogs.refund();
      assert.match(confirmText, /full amount.*can no longer be used/);
      await dialogs.refundCanceled.waitFor();
      assert.match(
        (await dialogs.refundCanceled.textContent()) ?? '',
        new RegExp(REFUND_CANCELED_MESSAGES.ineligible),
      );
      await dialogs.refundCanceled.getByTestId('support-contacts').waitFor();
      await saveScreenshot(my.page, 'lifecycle-refund-ineligible-desktop');
      await dialogs.close(dialogs.refundCanceled);

      market.lifecycle.refundAnswers.push(refused(409, 'agentNotDead'));
      await dialogs.refund();
      await dialogs.refundCanceled.getByText(REFUND_CANCELED_MESSAGES.alive, { exact: true }).waitFor();
      assert.equal(await dialogs.refundCanceled.getByTestId('support-contacts').count(), 0);
      await dialogs.close(dialogs.refundCanceled);

      market.lifecycle.refundAnswers.push({ status: 500, body: { error: 'MOCK', message: 'boom' } });
      await dialogs.refund();
      await dialogs.refundCanceled.getByText(REFUND_CANCELED_MESSAGES.other, { exact: true }).waitFor();
      await dialogs.close(dialogs.refundCanceled);
      assert.equal(await shell.page.getByTestId('state-error').count(), 0, 'no global error');

      await dialogs.refund();
      await waitForCall(market, isCall('DELETE', `/leases/${lease.id}`));
      await shell.page.getByText('The proxy was refunded to your balance', { exact: true }).waitFor();
      await shell.waitForBalance('$15.34');
      await my.rows.filter({ hasText: lease.currentInfo.ip }).waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });

  it('a static lease only gets the instructions: the lease id and the support contacts', async () => {
    const { context, shell, my, dialogs, api, staticLease } = await visit();
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(staticLease.currentInfo.ip);
      await dialogs.refundButton.click();
      await dialogs.staticRefund.waitFor();
      assert.equal(
        await dialogs.staticRefund.getByTestId('static-refund-lease-id').textContent(),
        staticLease.id,
      );
      await dialogs.staticRefund.getByRole('link', { name: 'support@example.com' }).waitFor();
      await saveScreenshot(my.page, 'lifecycle-refund-static-desktop');
      await dialogs.close(dialogs.staticRefund, 'Close');
      assert.equal(
        api.market.calls.some(isCall('DELETE', `/leases/${staticLease.id}`)),
        false,
        'no refund call',
      );
    } finally {
      await context.close();
    }
  });
});

describe('phone lease detail', () => {
  it('renews and refunds from /my/{id}; a refund goes back to My Proxies', async () => {
    const { context, shell, my, dialogs, api, lease } = await visit({ viewport: PHONE });
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForCards();
      await my.openCard(lease.currentInfo.ip);
      await dialogs.renew();
      await dialogs.close(await dialogs.renewMessage(RENEW_MESSAGES.success));
      market.leases.find((l) => l.id === lease.id)!.renewable = true;
      market.lifecycle.renewAnswers.push(renewAnswer(402));
      await my.page.reload();
      await dialogs.renew();
      const funds = await dialogs.renewMessage(RENEW_MESSAGES.notEnoughFunds);
      await saveScreenshot(my.page, 'lifecycle-renew-funds-phone');
      await funds.getByRole('button', { name: 'Add Funds' }).click();
      await my.page.waitForURL(/\/add-funds$/);
      await my.page.goBack();

      market.lifecycle.refundAnswers.push({
        status: 409,
        body: { error: 'MOCK', message: 'x', errorCode: 'notRefundable' },
      });
      await dialogs.refund();
      await dialogs.refundCanceled.getByText(REFUND_CANCELED_MESSAGES.alive, { exact: true }).waitFor();
      await saveScreenshot(my.page, 'lifecycle-refund-alive-phone');
      await dialogs.close(dialogs.refundCanceled);
      await dialogs.refund();
      await my.page.waitForURL(/\/my$/);
      await my.cards.filter({ hasText: lease.currentInfo.ip }).waitFor({ state: 'detached' });
    } finally {
      await context.close();
    }
  });
});

describe('traffic by hour', () => {
  for (const [name, viewport] of [
    ['desktop', undefined],
    ['phone', PHONE],
  ] as const) {
    it(`${name}: the lease detail charts the hourly traffic and downloads it as CSV`, async () => {
      const { context, shell, my, dialogs, api, lease } = await visit(viewport ? { viewport } : {});
      const hours = demoTraffic();
      api.market.lifecycle.traffic[lease.id] = hours;
      try {
        await shell.open(app.baseUrl, '/my', fakeAccessToken());
        if (viewport) {
          await my.waitForCards();
          await my.openCard(lease.currentInfo.ip);
        } else {
          await my.waitForRows();
          await my.selectLease(lease.currentInfo.ip);
        }
        await dialogs.trafficChart.waitFor();
        const reqs = hours.reduce((n, h) => n + h.reqs, 0);
        const authFails = hours.reduce((n, h) => n + h.authFails, 0);
        assert.ok(authFails > 0, 'the demo traffic has refused sign-ins');
        const summary = (await dialogs.trafficTotals.textContent()) ?? '';
        assert.match(summary, new RegExp(`^24 hours · ${reqs.toLocaleString('en-US')} requests`));
        assert.match(summary, new RegExp(` failed · ${authFails} failed sign-ins · You to Proxy`));
        await dialogs.trafficChart.scrollIntoViewIfNeeded();
        await saveScreenshot(my.page, `lifecycle-traffic-${name}`);
        const download = await dialogs.downloadCsv();
        assert.equal(download.suggestedFilename(), `lease-${lease.id}-traffic.csv`);
        const csv = await readFile((await download.path())!, 'utf8');
        const lines = csv.split('\n');
        assert.equal(lines[0], LEASE_TRAFFIC_CSV_HEADER);
        assert.equal(lines.length, 25);
        await waitForCall(api.market, isCall('GET', `/leases/${lease.id}/traffic.csv`));
      } finally {
        await context.close();
      }
    });
  }
});
