/**
 * The checks on the whole product with the demo network, as `npm start` runs them: the devnet's
 * DNSBL server lists some demo US agents (apps/devnet/src/checks/demo.ts) and the server looks
 * them up with Node's resolver, so the shop's Clean column, its stars filter and the proxy detail's
 * Blacklists tab show real lookups; a lease's Update Score buys a check answered by the GetIPIntel,
 * IPQualityScore and minFraud stand-ins in their real shapes; Test Now runs a real speed test
 * through the gateway and the agent's tunnel.
 *
 * Demo agents by city: Yonkers 198.51.100.13 (8 lists), Brooklyn 203.0.113.10 (2 lists), Newark
 * 192.0.2.12 (only the two ignored lists), Stamford 203.0.113.12 (flagged by the score providers).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENDPOINTS, type Endpoint, type TAgent } from '@pm/contracts';
import type { TestStack } from '@pm/devnet/stack';
import type { Browser } from 'playwright-core';
import { MyProxiesPage } from './pages/MyProxiesPage.ts';
import { ShopPage } from './pages/ShopPage.ts';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { assertOneClock } from './support/clock.ts';
import { stackSuite } from './support/stackSuite.ts';
import {
  type CallArgs,
  openStackVisit,
  type StackVisit,
  shownBalanceC,
  signInOnStack,
  stackApiWithToken,
  usd,
  waitUntil,
} from './support/stackVisit.ts';

let browser: Browser;
let stack: TestStack;

stackSuite({ label: 'web_e2e_checks', network: {} }, (s, b) => {
  stack = s;
  browser = b;
});

interface Visit extends StackVisit {
  shop: ShopPage;
  my: MyProxiesPage;
}

async function newVisit(viewport = DESKTOP): Promise<Visit> {
  const v = await openStackVisit(browser, stack, { viewport });
  return { ...v, shop: new ShopPage(v.page), my: new MyProxiesPage(v.page) };
}

const customer = () => stack.demo.customer;
/**
 * A market API call as the demo customer, with one password-grant token for the whole file: the
 * sweep is polled, and a token per call would run into the identity host's grant limits.
 */
let token: string | undefined;
async function api<E extends Endpoint>(e: E, ...call: CallArgs<E>) {
  token ??= await stack.token(customer().email, customer().password);
  return stackApiWithToken(stack, token, e, ...call);
}

/** The US demo agent in `city`, as the API shows it now. */
async function agentIn(city: string): Promise<TAgent> {
  const list = (await api(ENDPOINTS.listAgents, { query: { cc: 'US', limit: 100 } })).ok();
  const agent = list.agents.find((a) => a.loc.city === city);
  assert.ok(agent, `a US agent in ${city}`);
  return agent;
}

/** The first blacklist sweep runs as the demo network comes up; wait until it reached Yonkers. */
async function waitForSweep(): Promise<void> {
  await waitUntil(
    async () => (await agentIn('Yonkers')).blacklists.listIDs.length > 0,
    'the blacklist sweep',
    60_000,
    1000,
  );
}

describe('the checks on the whole product with the demo network', () => {
  it('the Clean column and the stars filter come from the DNS blacklists', async () => {
    await waitForSweep();
    const v = await newVisit();
    try {
      await signInOnStack(v, stack, customer());
      await v.shop.waitForRows();
      await v.shop.setRowsPerPage(50);
      await waitUntil(async () => (await v.shop.rows.count()) > 10, 'the US list on one page');
      // A row by its city and the shown part of its address (a city may have several agents).
      const row = (city: string, ip: string) =>
        v.shop.rows.filter({ hasText: city }).filter({ hasText: `${ip}.***` });
      const cleanOf = async (city: string, ip: string) => (await v.shop.rowCells(row(city, ip)))[5];
      assert.equal(await cleanOf('Yonkers', '198.51.100'), '4', '8 lists');
      assert.equal(await cleanOf('Brooklyn', '203.0.113'), '8', '2 lists');
      assert.equal(await cleanOf('Newark', '192.0.2'), '10', 'only ignored lists');
      await saveScreenshot(v.page, 'checks-stack-desktop-clean');

      await v.shop.showFilters();
      await v.shop.chooseFilter('Clean', '5 or more');
      await waitUntil(async () => (await row('Yonkers', '198.51.100').count()) === 0, 'Yonkers filtered out');
      assert.equal(await row('Brooklyn', '203.0.113').count(), 1);
      assert.equal(new URL(v.page.url()).searchParams.get('stars'), '5');
    } finally {
      await v.context.close();
    }
  });

  it("a 390 px phone opens a listed proxy's Blacklists and sees its lists by name", async () => {
    await waitForSweep();
    const yonkers = await agentIn('Yonkers');
    const newark = await agentIn('Newark');
    const v = await newVisit(PHONE);
    try {
      await signInOnStack(v, stack, customer(), `/shop/${yonkers.id}`);
      await v.page.getByTestId('agent-info').waitFor();
      const panel = await v.shop.openDetailTab('Blacklists');
      const names = await panel.getByRole('listitem').allInnerTexts();
      assert.equal(names.length, 8);
      for (const name of [
        'Spamhaus SBL',
        'SpamCop',
        'Barracuda Reputation',
        'DroneBL',
        'UCEPROTECT Level 1',
      ]) {
        assert.ok(names.includes(name), name);
      }
      await saveScreenshot(v.page, 'checks-stack-phone-blacklists');

      await v.page.goto(new URL(`/shop/${newark.id}`, stack.webUrl).toString());
      await v.page.getByTestId('agent-info').waitFor();
      const clean = await v.shop.openDetailTab('Blacklists');
      await clean.getByText('No blacklist records').waitFor();
      await saveScreenshot(v.page, 'checks-stack-phone-no-blacklists');
    } finally {
      await v.context.close();
    }
  });

  it("updates a lease's score after confirming its price (G, I, M on their scales, one verdict, charged once) and tests its speed", async () => {
    const stamford = await agentIn('Stamford');
    const bought = await api(ENDPOINTS.createLease, {
      body: { agentID: stamford.id, expPriceC: stamford.priceExcC, probe: false, exc: true },
    });
    const ip = bought.ok().currentInfo.ip;
    const v = await newVisit();
    try {
      await signInOnStack(v, stack, customer(), '/my');
      await v.my.waitForRows();
      await v.my.selectLease(ip);
      const before = await shownBalanceC(v);
      const score = await v.my.openTab('Update Score');
      await score.getByText('No score check yet').waitFor();
      // The price comes from the server's quote and nothing is charged until Confirm.
      const confirm = v.page.getByRole('dialog', { name: 'Check the IP score?' });
      await score.getByRole('button', { name: 'Update Score' }).click();
      assert.match(
        await confirm.getByTestId('score-price').innerText(),
        /Price: \$0\.50, taken from your balance/,
      );
      assert.match(await confirm.innerText(), new RegExp(`the address ${ip.replaceAll('.', '\\.')}`));
      assert.match(await confirm.innerText(), /GetIPIntel[\s\S]*IPQualityScore[\s\S]*MaxMind minFraud/);
      await saveScreenshot(v.page, 'checks-stack-desktop-score-confirm');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      assert.equal(await shownBalanceC(v), before, 'Cancel charges nothing');
      const records = (await api(ENDPOINTS.listTxRecords, { query: { offset: 0, limit: 50 } })).ok();
      assert.equal(records.txRecords.filter((r) => r.type === 'scorecheck').length, 0);
      await score.getByText('No score check yet').waitFor();

      await score.getByRole('button', { name: 'Update Score' }).click();
      await confirm.getByRole('button', { name: 'Confirm' }).click();
      await v.shell.text('IP Score information updated').waitFor();
      await score.getByTestId('score-check').waitFor();
      const shown = await score.innerText();
      // Each provider on its own scale: GetIPIntel 0-1, IPQualityScore 0-100, minFraud 0.01-99.
      assert.match(shown, /G\s+GetIPIntel\s+0\.99\s+\(0 to 1\)\s+High/);
      assert.match(shown, /I\s+IPQualityScore\s+88\s+\(0 to 100\)\s+High/);
      assert.match(shown, /M\s+MaxMind minFraud\s+78\.1\s+\(0\.01 to 99\)\s+High/);
      assert.equal(await score.getByTestId('score-verdict').innerText(), 'Risky');
      for (const w of ['proxy', 'vpn', 'hosting', 'abuse']) assert.match(shown, new RegExp(`\\b${w}\\b`));
      assert.doesNotMatch(shown, /\btor\b/);
      await v.shell.waitForBalance(usd(before - 50));
      await saveScreenshot(v.page, 'checks-stack-desktop-score');

      const speed = await v.my.openTab('Test Speed');
      await speed.getByRole('button', { name: 'Test Now' }).click();
      await speed.getByText(/\d+\.\d Mbps/).waitFor({ timeout: 45_000 });
      assert.equal(
        await speed.getByRole('button', { name: 'Test Now' }).isDisabled(),
        true,
        'retest after 6 minutes',
      );
      assert.match(await speed.innerText(), /Retest available at \d{1,2}:\d\d/);
      assertOneClock(await speed.innerText(), '12h', 2);
      await saveScreenshot(v.page, 'checks-stack-desktop-speed');

      // The same lease on a 390 px phone (one sign-in per journey).
      await v.page.setViewportSize(PHONE);
      await v.my.waitForCards();
      await v.my.openCard(ip);
      const phoneScore = await v.my.openTab('Update Score');
      await phoneScore.getByTestId('score-check').waitFor();
      assert.equal(await phoneScore.getByTestId('score-verdict').innerText(), 'Risky');
      await saveScreenshot(v.page, 'checks-stack-phone-score');
      await phoneScore.getByRole('button', { name: 'Update Score' }).click();
      await confirm.getByTestId('score-price').waitFor();
      await saveScreenshot(v.page, 'checks-stack-phone-score-confirm');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'detached' });
      const phoneSpeed = await v.my.openTab('Test Speed');
      await phoneSpeed.getByText(/\d+\.\d Mbps/).waitFor();
      await saveScreenshot(v.page, 'checks-stack-phone-speed');
    } finally {
      await v.context.close();
    }
  });
});
