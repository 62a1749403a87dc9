/**
 * My Proxies against a mocked market API (page routes): the empty state, the table and detail sidebar,
 * the note, auto-renew, SOCKS credentials and the connection string, the no-auth port's whitelist,
 * and the phone's cards and lease detail tabs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TLease } from '@pm/contracts';
import { waitFor } from '@pm/testkit';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { PHONE, saveScreenshot } from './support/browser.ts';
import { assertOneClock } from './support/clock.ts';
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
  /** A shared lease on agent-0 (Austin, no blacklists) and a private one on agent-2 (San Jose, listed). */
  leases: [TLease, TLease];
}

async function visit(options: MockSessionOptions = {}, withLeases = true): Promise<Visit> {
  const session = await app.newSession(options);
  const { market } = session.api;
  const byId = (id: string) => market.agents.find((a) => a.id === id)!;
  const shared = buildLease(byId('agent-0'), { note: 'Price checks' });
  const exclusive = buildLease(byId('agent-2'), {
    exc: true,
    renewable: true,
    currentInfo: { ...buildLease(byId('agent-2')).currentInfo, blacklists: ['zen', 'pbl', 'spamcop'] },
  });
  if (withLeases) market.leases.push(shared, exclusive);
  return { ...session, my: new MyProxiesPage(session.shell.page), leases: [shared, exclusive] };
}

describe('desktop My Proxies', () => {
  it("says 'No active proxies found' without leases", async () => {
    const { context, shell, my } = await visit({}, false);
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.emptyState.waitFor();
      assert.equal(await my.emptyState.textContent(), 'No active proxies found');
    } finally {
      await context.close();
    }
  });

  it('table, filter box, Info with Show more, totals, the note and the Automatically renew switch', async () => {
    const { context, shell, my, api, leases } = await visit();
    const [shared, exclusive] = leases;
    const { market } = api;
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      assert.equal(await my.rows.count(), 2);
      await my.filterBox.fill('san jose');
      await waitFor(async () => (await my.rows.count()) === 1, {
        timeoutMs: 10_000,
        what: 'the filter box keeps one lease',
      });
      await my.filterBox.fill('');
      await my.selectLease(shared.currentInfo.ip);

      assert.equal(await my.value('Lease ID').textContent(), shared.id);
      assert.equal(await my.value('IP Address').textContent(), shared.currentInfo.ip);
      assert.equal(await my.value('Country').textContent(), 'United States');
      assert.equal(await my.value('Hostname').count(), 0, 'Hostname is under Show more');
      await my.toggleShowMore();
      assert.equal(await my.value('Hostname').textContent(), shared.currentInfo.host);
      assert.equal(await my.value('Shared').textContent(), '1 of 4');
      assert.equal(await my.value('Connection').textContent(), 'Cell');
      assert.match((await my.value('Uptime').textContent()) ?? '', /^3d \d+h$/);
      assert.equal(await my.value('Activity').textContent(), '92% (Good)');
      assert.equal(await my.value('Total Requests').textContent(), '1,234');
      assert.equal(await my.value('Failed %').textContent(), '2.5%');
      // Wrong passwords are their own figure, never inside Failed %.
      assert.equal(await my.value('Failed sign-ins').textContent(), '17');
      assert.equal(await my.value('You to Proxy').textContent(), '1.5 MB');
      assert.equal(await my.value('Proxy to You').textContent(), '48.0 MB');
      await saveScreenshot(my.page, 'my-proxies-desktop');
      await my.toggleShowMore();
      await my.value('Hostname').waitFor({ state: 'detached' });

      // The note: saved trimmed on blur, at most 200 characters, deleted at once when cleared.
      await my.setNote('  Scraper A  ');
      const put = await waitForCall(market, isCall('PUT', `/agentnotes/${shared.agentId}`));
      assert.deepEqual(put.body, { note: 'Scraper A' });
      assert.equal(await my.note.inputValue(), 'Scraper A');
      await my.rows.filter({ hasText: 'Scraper A' }).waitFor();
      await my.note.fill('x'.repeat(250));
      assert.equal((await my.note.inputValue()).length, 200);
      await my.note.fill('');
      await waitForCall(market, isCall('DELETE', `/agentnotes/${shared.agentId}`));
      assert.equal(
        await my.note.evaluate((el) => el === document.activeElement),
        true,
        'deleted before blur',
      );

      // Automatically renew: flips at once, and flips back when the server refuses.
      assert.equal(await my.autoRenew.isChecked(), false);
      await my.autoRenew.click();
      // Rendered on the click's next frame, not after the answer (a loaded CI may take a few).
      await waitFor(() => my.autoRenew.isChecked(), { timeoutMs: 2000, what: 'the switch flips at once' });
      await waitForCall(market, isCall('PATCH', `/leases/${shared.id}/autoRenew`, { set: 'true' }));
      market.autoRenewStatus = 409;
      await my.autoRenew.click();
      await waitForCall(market, isCall('PATCH', `/leases/${shared.id}/autoRenew`, { set: 'false' }));
      await waitFor(() => my.autoRenew.isChecked(), { timeoutMs: 10_000, what: 'the switch rolls back' });
      assert.equal(await shell.page.getByTestId('state-error').count(), 0);

      // Renew and Refund follow the lease's flags.
      assert.equal(await my.renewButton.isDisabled(), true);
      assert.equal(await my.refundButton.isDisabled(), true);
      await my.selectLease(exclusive.currentInfo.ip);
      assert.equal(await my.renewButton.isEnabled(), true, 'renewable');
      assert.equal(await my.refundButton.isDisabled(), true, 'not refundable');
    } finally {
      await context.close();
    }
  });

  it('Socks Auth: masked password, reveal, four ports, Copy connection string; Port NoAuth whitelist', async () => {
    const { context, shell, my, api, leases } = await visit();
    const [shared] = leases;
    const { market } = api;
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(shared.currentInfo.ip);
      await my.openTab('Socks Auth');
      assert.equal(await my.value('Username').textContent(), shared.socks.user);
      assert.equal(await my.password.textContent(), '••••••••••');
      await my.revealPassword();
      assert.equal(await my.password.textContent(), shared.socks.pwd);
      // The answer's own ports (`socks.ports`), shown as they are.
      assert.deepEqual(await my.socksPorts(), shared.socks.ports.map(String));
      await my.copyConnectionString();
      await shell.text('Copied to clipboard').waitFor();
      const copied = await my.page.evaluate(() => navigator.clipboard.readText());
      assert.equal(
        copied,
        `socks5h://${shared.socks.user}:${shared.socks.pwd}@127.0.0.1:${shared.socks.ports[0]}`,
      );
      await saveScreenshot(my.page, 'my-proxies-desktop-socks');

      const panel = await my.openTab('Port NoAuth');
      assert.equal(await my.saveWhitelistButton.isDisabled(), true, 'untouched');
      await my.whitelist.fill('203.0.113.5, 300.1.1.1');
      await panel.getByText('Not an IPv4 address: 300.1.1.1').waitFor();
      assert.equal(await my.whitelist.getAttribute('aria-invalid'), 'true');
      assert.equal(await my.saveWhitelistButton.isDisabled(), true, 'an invalid entry');
      await my.whitelist.fill('');
      assert.equal(await my.whitelist.getAttribute('aria-invalid'), 'false', 'empty clears the error');
      await my.whitelist.fill('203.0.113.5, 198.51.100.7');
      assert.equal(await my.saveWhitelistButton.isEnabled(), true);
      await my.saveWhitelistButton.click();
      const post = await waitForCall(market, isCall('POST', `/authport/create/${shared.id}`));
      assert.equal(post.body, '203.0.113.5,198.51.100.7', 'the whitelist string as JSON');
      await panel.getByTestId('auth-port').waitFor();
      assert.equal(await my.value('SOCKS Port').textContent(), String(market.leases[0]?.authPort?.port));
      await saveScreenshot(my.page, 'my-proxies-desktop-noauth');

      market.authPortStatus = 500;
      await my.whitelist.fill('203.0.113.9');
      await my.saveWhitelistButton.click();
      await shell.text('Error creating port').waitFor();
      assert.equal(await shell.page.getByTestId('state-error').count(), 0);
    } finally {
      await context.close();
    }
  });
  it("Test Now on a proxy that does not answer says 'Speed could not be tested' and when to retest", async () => {
    const { context, shell, my, api, leases } = await visit();
    const [shared] = leases;
    api.market.checks.speedFails.add(shared.agentId);
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(shared.currentInfo.ip);
      const panel = await my.openTab('Test Speed');
      await panel.getByRole('button', { name: 'Test Now' }).click();
      await panel.getByText('Speed could not be tested').waitFor();
      assert.match(await panel.innerText(), /Retest available at \d{1,2}:\d\d/);
      assertOneClock(await panel.innerText(), '12h');
      assert.equal(await panel.getByRole('button', { name: 'Test Now' }).isDisabled(), true);
      await saveScreenshot(my.page, 'my-proxies-desktop-speed-failed');
    } finally {
      await context.close();
    }
  });

  it("shows every time on the browser's clock: 24-hour in en-GB, to the minute", async () => {
    const { context, shell, my, leases } = await visit({ locale: 'en-GB' });
    try {
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForRows();
      await my.selectLease(leases[1].currentInfo.ip);
      const panel = await my.openTab('Test Speed');
      await panel.getByRole('button', { name: 'Test Now' }).click();
      await panel.getByText('42.5 Mbps').waitFor();
      // "Tested 29 Nov 2026, 03:25 · Retest available at 03:31": one clock, no seconds.
      assert.match(
        await panel.innerText(),
        /Tested \d{1,2} \w{3} \d{4}, \d\d:\d\d · Retest available at \d\d:\d\d/,
      );
      assertOneClock(await panel.innerText(), '24h', 2);
      await saveScreenshot(my.page, 'my-proxies-desktop-speed-en-gb');
    } finally {
      await context.close();
    }
  });
});

describe('phone My Proxies (390 px)', () => {
  it('cards, Show history, the lease detail tabs: Update Score (G, I, M and warnings), Test Speed (Mbps), Blacklists', async () => {
    const { context, shell, my, leases } = await visit({ viewport: PHONE });
    const [shared, exclusive] = leases;
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.baseUrl });
      await shell.open(app.baseUrl, '/my', fakeAccessToken());
      await my.waitForCards();
      assert.equal(await my.cards.count(), 2);
      await saveScreenshot(my.page, 'my-proxies-phone');
      await my.showHistory.click();
      await my.page.waitForURL((u) => u.pathname === '/my/history');
      await my.page.goBack();
      await my.waitForCards();

      await my.openCard(exclusive.currentInfo.ip);
      assert.equal(new URL(my.page.url()).pathname, `/my/${exclusive.id}`);
      await shell.screenTitle.filter({ hasText: 'Proxy Details' }).waitFor();
      assert.equal(await my.value('Lease ID').textContent(), exclusive.id);
      let panel = await my.openTab('Update Score');
      await panel.getByText('No score check yet').waitFor();
      await panel.getByRole('button', { name: 'Update Score' }).click();
      const confirm = my.page.getByRole('dialog', { name: 'Check the IP score?' });
      assert.match(
        await confirm.getByTestId('score-price').innerText(),
        /Price: \$0\.25, taken from your balance/,
      );
      await saveScreenshot(my.page, 'my-proxies-phone-score-confirm');
      await confirm.getByRole('button', { name: 'Confirm' }).click();
      await shell.text('IP Score information updated').waitFor();
      await panel.getByTestId('score-check').waitFor();
      // Each provider on its own scale, with its band; the one that failed says so.
      assert.match(
        await panel.innerText(),
        /G\s+GetIPIntel\s+0\.99\s+\(0 to 1\)\s+High[\s\S]*I\s+IPQualityScore\s+88\s+\(0 to 100\)\s+High[\s\S]*M\s+MaxMind minFraud\s+Not available/,
      );
      assert.equal(await panel.getByTestId('score-verdict').innerText(), 'Risky');
      assert.match(await panel.innerText(), /proxy[\s\S]*vpn[\s\S]*hosting/);
      await saveScreenshot(my.page, 'my-proxies-phone-score');
      panel = await my.openTab('Test Speed');
      await panel.getByText('Not tested yet').waitFor();
      await panel.getByRole('button', { name: 'Test Now' }).click();
      await panel.getByText('42.5 Mbps').waitFor();
      // Chromium's default en-US: "Tested Nov 29, 2026, 3:25 AM · Retest available at 3:31 AM".
      assertOneClock(await panel.innerText(), '12h', 2);
      assert.equal(
        await panel.getByRole('button', { name: 'Test Now' }).isDisabled(),
        true,
        'retest after 6 minutes',
      );
      await saveScreenshot(my.page, 'my-proxies-phone-speed');
      panel = await my.openTab('Blacklists');
      assert.deepEqual(await panel.getByRole('listitem').allInnerTexts(), [
        'SpamCop',
        'Spamhaus XBL (exploits)',
      ]);
      await saveScreenshot(my.page, 'my-proxies-phone-blacklists');
      await my.openTab('Socks Auth');
      await my.copyConnectionString();
      await shell.text('Copied to clipboard').waitFor();

      await my.page.getByRole('button', { name: 'Back' }).click();
      await my.openCard(shared.currentInfo.ip);
      panel = await my.openTab('Blacklists');
      await panel.getByText('No blacklist records').waitFor();
    } finally {
      await context.close();
    }
  });
});
