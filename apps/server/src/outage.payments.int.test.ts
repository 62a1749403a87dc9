/**
 * Payments across a database outage (issue 38 item 5): the API and the chain watcher on a PostgreSQL
 * cluster of the test's own (test/private-pg.ts), stopped as a crash stops it and started again.
 * A top-up asked for meanwhile answers 503 with Retry-After, quickly; a payment made before the
 * outage and one made during it are each credited once after the return, however many watcher
 * passes run, and the balance equals its ledger. Skipped with the reason where no PostgreSQL
 * server binaries are installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, type TCryptoCreateResponse, ZCryptoCreateResponse } from '@pm/contracts';
import { waitFor } from '@pm/testkit';
import { createPaymentsHarness, type PaymentsHarness } from './test/payments.ts';
import { type PrivatePg, privatePgUnavailable, startPrivatePg } from './test/private-pg.ts';
import { callRoute } from './test/route.ts';

/** The bound: back by itself within 10 s of the database's return. */
const RECOVERY_LIMIT_MS = 10_000;
/** The pool's 5 s connection timeout and a margin. */
const ANSWER_LIMIT_MS = 7_000;

const skip = privatePgUnavailable();
let pg: PrivatePg;
let h: PaymentsHarness;

/** One watcher pass with every charge due. */
const watch = async () => {
  await h.makeDue();
  await h.services.paymentWatcher.watchOnce();
};

async function topUp(userId: string, amount: number) {
  const started = Date.now();
  const res = await callRoute(h.app, ENDPOINTS.createCharge, {
    headers: await h.auth(userId),
    body: { amount, type: 'ltc' },
  });
  return { res, ms: Date.now() - started };
}

/** A customer's deposits in the ledger, its balance and the ledger's sum. */
async function books(userId: string) {
  const [row] = await h.db.query<{ deposits: number; bal: string; sum: string }>(
    `SELECT (SELECT count(*)::int FROM txrecords WHERE user_id = $1 AND type = 'deposit') AS deposits,
            a.balance_c AS bal, (SELECT coalesce(sum(amt_c), 0) FROM txrecords WHERE user_id = $1) AS sum
       FROM accounts a WHERE a.user_id = $1`,
    [userId],
  );
  return { deposits: row!.deposits, balance: Number(row!.bal), ledger: Number(row!.sum) };
}

describe('payments across a database outage', { skip: skip ?? false }, () => {
  before(
    async () => {
      pg = await startPrivatePg();
      h = await createPaymentsHarness('payments_outage', { bonusPct: 0 }, pg.url);
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await h?.close().catch(() => {});
    pg?.close();
  });

  test('a payment before and one during the outage are credited once after it; a top-up meanwhile is a 503', {
    timeout: 120_000,
  }, async () => {
    const paidBefore = await h.customer();
    const paidDuring = await h.customer();
    const startBefore = await books(paidBefore.userId);
    const startDuring = await books(paidDuring.userId);
    const charges: TCryptoCreateResponse[] = [];
    for (const [c, amount] of [
      [paidBefore, 2000],
      [paidDuring, 3000],
    ] as const) {
      const { res } = await topUp(c.userId, amount);
      assert.equal(res.statusCode, 200, res.body);
      charges.push(ZCryptoCreateResponse.parse(res.json()));
    }
    h.chain.pay('ltc', charges[0]!.address, charges[0]!.amount, 6);

    pg.stop();
    h.chain.pay('ltc', charges[1]!.address, charges[1]!.amount, 6);
    const during = await topUp(paidBefore.userId, 5000);
    assert.equal(during.res.statusCode, 503, during.res.body);
    assert.ok(Number(during.res.headers['retry-after']) > 0, 'Retry-After');
    assert.ok(during.ms <= ANSWER_LIMIT_MS, `answered in ${during.ms} ms`);
    // The watcher's pass fails as a whole; nothing is credited while the database is away.
    await assert.rejects(h.services.paymentWatcher.watchOnce());

    pg.start();
    const backAt = Date.now();
    await waitFor(
      () =>
        watch().then(
          () => true,
          () => false,
        ),
      { timeoutMs: RECOVERY_LIMIT_MS, what: 'a watcher pass', intervalMs: 100 },
    );
    const creditedMs = Date.now() - backAt;
    // More passes, as the schedule would run them: nothing credited twice.
    await watch();
    await watch();
    for (const [c, amount, start] of [
      [paidBefore, 2000, startBefore],
      [paidDuring, 3000, startDuring],
    ] as const) {
      const now = await books(c.userId);
      assert.equal(now.deposits, start.deposits + 1, 'one deposit');
      assert.equal(now.balance - start.balance, amount, 'credited once');
      assert.equal(now.balance, now.ledger, 'the books balance');
    }
    const after = await topUp(paidBefore.userId, 5000);
    assert.equal(after.res.statusCode, 200, after.res.body);
    console.log(
      `top-up during the outage: 503 in ${during.ms} ms; both payments credited ${creditedMs} ms after the return`,
    );
  });
});
