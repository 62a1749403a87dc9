import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS, type EndpointRequest } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { type ScoreStandIns, startScoreStandIns } from '@pm/devnet/checks';
import { cents } from '@pm/money';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRoute } from '../../test/route.ts';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { DEFAULT_CHECKS_SETTINGS } from './checks.config.ts';
import { createScoreProviders } from './checks.providers.ts';
import { createScoreService } from './checks.score.ts';

let t: TestApp;
let providers: ScoreStandIns;
let nodeId: string;
const PRICE = 50;

before(async () => {
  providers = await startScoreStandIns();
  t = await createTestApp('checks_score', {
    payments: false,
    settings: {
      checks: {
        ...DEFAULT_CHECKS_SETTINGS,
        score: {
          ...DEFAULT_CHECKS_SETTINGS.score,
          priceC: PRICE,
          timeoutMs: 2000,
          getipintel: { url: providers.url, contact: 'ops@example.test' },
          ipqs: { url: providers.url, key: providers.ipqsKey },
          minfraud: { url: providers.url, ...providers.minfraud },
        },
      },
    },
  });
  nodeId = (await buildNode(t.db)).id;
});
after(async () => {
  await t.close();
  await providers.close();
});

async function customer(balanceC = 1000) {
  const userId = newUserId();
  await buildAccount(t.db, { userId, balanceC });
  return { userId, headers: await t.auth(userId) };
}
const balanceOf = async (userId: string) =>
  Number(
    (await t.db.query<{ b: string }>('SELECT balance_c AS b FROM accounts WHERE user_id = $1', [userId]))[0]!
      .b,
  );
const agentAt = async (ip: string) => (await buildAgent(t.db, { ip, nodeId, online: true })).id;

async function quote(headers: Record<string, string>) {
  const res = await callRoute(t, ENDPOINTS.quoteScoreCheck, { headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { priceC: number; oneTimeToken: string };
}
const buy = (
  headers: Record<string, string>,
  body: EndpointRequest<typeof ENDPOINTS.buyScoreCheck>['body'],
) => callRoute(t, ENDPOINTS.buyScoreCheck, { headers, body });

test('a quote then a purchase charges the price once and answers G, I and M with their warnings', async () => {
  const c = await customer();
  const agentID = await agentAt('203.0.113.12'); // flagged by the stand-ins
  const q = await quote(c.headers);
  assert.equal(q.priceC, PRICE);
  const res = await buy(c.headers, { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken });
  assert.equal(res.statusCode, 200, res.body);
  const check = res.json();
  assert.equal(check.status, 'done');
  assert.deepEqual(
    [
      check.score.status1,
      check.score.score1,
      check.score.status2,
      check.score.score2,
      check.score.status3,
      check.score.score3,
    ],
    ['ok', 99, 'ok', 88, 'ok', 78.1],
  );
  assert.deepEqual(check.warnings, { proxy: true, tor: false, vpn: true, hosting: true, abuse: true });
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);

  // Shown on the agent afterwards.
  const agent = await callRoute(t, ENDPOINTS.getAgent, { params: { id: agentID }, headers: c.headers });
  assert.equal(agent.json().scoreCheck?.score.score2, 88);
});

test('a spent token is refused (409 tokenUsed) and charges nothing more', async () => {
  const c = await customer();
  const agentID = await agentAt('192.0.2.50');
  const q = await quote(c.headers);
  const body = { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken };
  assert.equal((await buy(c.headers, body)).statusCode, 200);
  const again = await buy(c.headers, body);
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().errorCode, 'tokenUsed');
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);
});

test("an unknown token, another customer's token, or a changed price is a 409 and charges nothing", async () => {
  const c = await customer();
  const other = await customer();
  const agentID = await agentAt('192.0.2.51');
  const unknown = await buy(c.headers, { agentID, expectedPriceC: PRICE, oneTimeToken: 'nope' });
  assert.equal(unknown.json().errorCode, 'tokenInvalid');
  const q = await quote(other.headers);
  const stolen = await buy(c.headers, { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken });
  assert.equal(stolen.json().errorCode, 'tokenInvalid');
  const mine = await quote(c.headers);
  const cheaper = await buy(c.headers, { agentID, expectedPriceC: 1, oneTimeToken: mine.oneTimeToken });
  assert.equal(cheaper.statusCode, 409);
  assert.equal(cheaper.json().errorCode, 'priceChanged');
  assert.equal(await balanceOf(c.userId), 1000);
  assert.equal(await balanceOf(other.userId), 1000);
});

test('concurrent purchases with one token charge exactly once', async () => {
  const c = await customer();
  const agentID = await agentAt('192.0.2.52');
  const q = await quote(c.headers);
  const body = { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken };
  const answers = await Promise.all(Array.from({ length: 8 }, () => buy(c.headers, body)));
  const codes = answers.map((a) => a.statusCode).sort();
  assert.deepEqual(codes, [200, 409, 409, 409, 409, 409, 409, 409]);
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);
  const rows = await t.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM txrecords WHERE user_id = $1 AND type = 'scorecheck'`,
    [c.userId],
  );
  assert.equal(Number(rows[0]!.n), 1);
});

test('short balance or no account is 402 and leaves the token unspent', async () => {
  const poor = await customer(PRICE - 1);
  const agentID = await agentAt('192.0.2.53');
  const q = await quote(poor.headers);
  const res = await buy(poor.headers, { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken });
  assert.equal(res.statusCode, 402);
  const stranger = await t.auth(newUserId());
  const q2 = await quote(stranger);
  assert.equal(
    (await buy(stranger, { agentID, expectedPriceC: PRICE, oneTimeToken: q2.oneTimeToken })).statusCode,
    402,
  );
  assert.equal(res.json().errorCode, 'notEnoughFunds');
  const blocked = newUserId();
  await buildAccount(t.db, { userId: blocked, balanceC: 1000, blocked: true });
  // A blocked account is refused before any handler (401/403), and is never charged.
  const b = await buy(await t.auth(blocked), {
    agentID,
    expectedPriceC: PRICE,
    oneTimeToken: q.oneTimeToken,
  });
  assert.ok([401, 403].includes(b.statusCode), String(b.statusCode));
  assert.equal(await balanceOf(blocked), 1000);
  // Topped up, the same quote still buys.
  await t.db.query('UPDATE accounts SET balance_c = 1000 WHERE user_id = $1', [poor.userId]);
  const ok = await buy(poor.headers, { agentID, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken });
  assert.equal(ok.statusCode, 200, ok.body);
});

test('partial answers are kept and charged; when every provider fails the fee is refunded', async () => {
  const c = await customer();
  const partial = await agentAt('203.0.113.10'); // IPQualityScore fails for it
  const q = await quote(c.headers);
  const res = await buy(c.headers, { agentID: partial, expectedPriceC: PRICE, oneTimeToken: q.oneTimeToken });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().score.status2, 'error');
  assert.equal(res.json().score.status1, 'ok');
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);

  const down = await agentAt('192.0.2.14'); // every provider fails
  const q2 = await quote(c.headers);
  const failed = await buy(c.headers, {
    agentID: down,
    expectedPriceC: PRICE,
    oneTimeToken: q2.oneTimeToken,
  });
  assert.equal(failed.statusCode, 503);
  assert.equal(failed.json().errorCode, 'scoreCheckFailed');
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);
  const types = await t.db.query<{ type: string }>(
    `SELECT type FROM txrecords WHERE user_id = $1 AND type IN ('scorecheck', 'refund') ORDER BY id`,
    [c.userId],
  );
  assert.deepEqual(
    types.map((r) => r.type),
    ['scorecheck', 'scorecheck', 'refund'],
  );
});

test('quotes are rate limited per customer (429)', async () => {
  const c = await customer();
  const codes: number[] = [];
  for (let i = 0; i < 12; i++) {
    codes.push((await callRoute(t, ENDPOINTS.quoteScoreCheck, { headers: c.headers })).statusCode);
  }
  assert.equal(codes.filter((s) => s === 200).length, 10);
  assert.equal(codes.at(-1), 429);
});

test('a check a crash left running is refunded once, however often recovery runs', async () => {
  const c = await customer();
  const agentID = await agentAt('192.0.2.54');
  const q = await quote(c.headers);
  // As if the process died after the charge and before the providers answered.
  const ledger = createLedgerService({ db: t.db.db });
  await t.db.db.transaction(async (tx) => {
    await t.db.query(`UPDATE score_check_quotes SET used_at = now() WHERE token = $1`, [q.oneTimeToken]);
    await ledger.charge(
      {
        userId: c.userId,
        amountC: cents(PRICE),
        type: 'scorecheck',
        memo: 'crash',
        idemKey: `scorecheck:${q.oneTimeToken}`,
      },
      tx,
    );
  });
  await t.db.query(
    `INSERT INTO score_checks (agent_id, ip, user_id, token, price_c, created_at) VALUES ($1, '192.0.2.54', $2, $3, $4, now() - interval '10 minutes')`,
    [agentID, c.userId, q.oneTimeToken, PRICE],
  );
  assert.equal(await balanceOf(c.userId), 1000 - PRICE);
  const scores = createScoreService({
    db: t.db.db,
    settings: DEFAULT_CHECKS_SETTINGS.score,
    providers: createScoreProviders(DEFAULT_CHECKS_SETTINGS.score),
    ledger,
    now: Date.now,
  });
  const counts = await Promise.all([
    scores.refundAbandoned(),
    scores.refundAbandoned(),
    scores.refundAbandoned(),
  ]);
  assert.ok(counts.every((n) => n >= 0));
  assert.equal(await balanceOf(c.userId), 1000);
  const refunds = await t.db.query<{ n: string }>(
    `SELECT count(*) AS n FROM txrecords WHERE user_id = $1 AND type = 'refund'`,
    [c.userId],
  );
  assert.equal(Number(refunds[0]!.n), 1);
});
