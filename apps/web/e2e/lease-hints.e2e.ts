/**
 * What a lease's detail tells without being asked (issue 28): why Renew and Refund are greyed, a
 * static lease's uptime without `GET /agents/{id}` (which answers 404 for static agents), and a phone
 * tab strip that shows more tabs follow. Against the mocked market API, at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTO_REFUND_RULE_SHORT, STAFF_PERMISSIONS } from '@pm/contracts';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { buildLease, isCall } from './support/marketMock.ts';
import { type MockApp, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

const HOUR = 3_600_000;

for (const [name, viewport] of [
  ['1280 px', DESKTOP],
  ['390 px', PHONE],
] as const) {
  describe(`lease detail at ${name}`, () => {
    it('greyed Renew and Refund say why; a static lease shows its uptime without asking /agents/{id}', async () => {
      const session = await app.newSession({ viewport });
      const { market } = session.api;
      const start = Date.now() - 2 * HOUR;
      // Bought 2 hours ago: Renew opens in 17 hours, and the proxy works (not refundable).
      const lease = buildLease(market.agents.find((a) => a.id === 'agent-2')!, {
        start: new Date(start).toISOString(),
        until: new Date(start + 24 * HOUR).toISOString(),
        renewable: false,
        stats: { reqs: 40, failPct: 0, authFails: 3, inBytes: 9_000, outBytes: 90_000, refundable: false },
      });
      // A static proxy used already: its refund rule is its own.
      const staticAgent = market.agents.find((a) => a.id === 'agent-8')!;
      const staticLease = buildLease(staticAgent, {
        static: true,
        exc: true,
        stats: { reqs: 3, failPct: 0, authFails: 0, inBytes: 100, outBytes: 1000, refundable: false },
      });
      market.leases.push(lease, staticLease);
      const my = new MyProxiesPage(session.shell.page);
      const open = async (ip: string) => {
        if (viewport === PHONE) {
          await session.shell.page.goto(new URL('/my', app.baseUrl).toString());
          await my.waitForCards();
          await my.openCard(ip);
        } else {
          await my.selectLease(ip);
        }
      };
      try {
        await session.shell.open(app.baseUrl, '/my', fakeAccessToken());
        if (viewport === PHONE) await my.waitForCards();
        else await my.waitForRows();

        await open(lease.currentInfo.ip);
        assert.equal(await my.renewButton.isDisabled(), true);
        assert.equal(await my.refundButton.isDisabled(), true);
        const hints = my.detail.getByTestId('lifecycle-hint');
        await hints.first().waitFor();
        assert.deepEqual(await hints.allTextContents(), [
          'Renew opens in the last 5 hours of the lease (in 17h)',
          `Refund: the proxy is responsive. ${AUTO_REFUND_RULE_SHORT}`,
        ]);
        assert.match((await my.value('Uptime').textContent()) ?? '', /^3d \d+h$/);
        // Refused sign-ins beside Failed %, never inside it.
        assert.equal(await my.value('Failed %').textContent(), '0%');
        assert.equal(await my.value('Failed sign-ins').textContent(), '3');
        await saveScreenshot(my.page, `lease-hints-${viewport.width}`);

        await open(staticLease.currentInfo.ip);
        assert.match((await my.value('Uptime').textContent()) ?? '', /^3d \d+h$/, 'the lease carries it');
        assert.deepEqual(await hints.allTextContents(), [
          'Renew opens in the last 5 hours of the lease (in 17h)',
          'Static proxies refund within 1 hour if unused: this one was used',
        ]);
        await my.openTab('Update Score');
        await my.openTab('Blacklists');
        await saveScreenshot(my.page, `lease-hints-static-${viewport.width}`);
        assert.equal(
          market.calls.some(isCall('GET', `/agents/${staticAgent.id}`)),
          false,
          'no GET /agents/{id} of a static agent',
        );
        if (viewport === PHONE) {
          // The tab strip overflows at 390 px: a visible arrow says more tabs follow.
          const strip = my.detail.getByRole('tablist', { name: 'Lease details' });
          const arrows = my.detail.locator('.MuiTabs-scrollButtons:not(.Mui-disabled)');
          await arrows.first().waitFor();
          assert.ok((await strip.boundingBox())!.width <= PHONE.width);
        }
      } finally {
        await session.context.close();
      }
    });
  });
}

describe('admin tab strip at 390 px', () => {
  it('shows an arrow that says more sections follow, and it scrolls to them', async () => {
    const session = await app.newSession({ viewport: PHONE });
    try {
      await session.shell.open(app.baseUrl, '/bigadmin', fakeAccessToken([...STAFF_PERMISSIONS]));
      const strip = session.shell.page.getByRole('tablist', { name: 'Admin sections' });
      await strip.waitFor();
      const next = session.shell.page.locator('.MuiTabs-scrollButtons:not(.Mui-disabled)');
      await next.last().waitFor();
      await saveScreenshot(session.shell.page, 'admin-tabs-390');
      await next.last().click();
      const payments = session.shell.page.getByRole('tab', { name: 'User Payments' });
      await payments.click();
      await session.shell.page.getByRole('tab', { name: 'User Payments', selected: true }).waitFor();
      assert.ok(await payments.isVisible(), 'the strip scrolled to the last sections');
    } finally {
      await session.context.close();
    }
  });
});
