/**
 * Exactly-once crediting as a property: whatever happens between the chain and the watchers
 * (payments in any order, blocks mined in between, unconfirmed transactions that vanish, passes of
 * one watcher, two at once, a freshly started one, and passes fed stale, replayed or reordered API
 * answers), once the chain settles every confirmed output is credited exactly once, at the locked
 * rate, and nothing else is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cents } from '@pm/money';
import fc from 'fast-check';
import { compose } from '../../compose.ts';
import { withSettingDefaults } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { testPaymentsSettings } from '../../test/app.ts';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { creditCents } from './payments.amounts.ts';
import type { PaymentWatcher } from './payments.watcher.ts';

const RUNS = Number(process.env.PAYMENTS_PROPERTY_RUNS ?? 40);

let h: PaymentsHarness;
before(async () => {
  // A cap no run reaches: this property is about exactly-once, the cap has its own tests.
  h = await createPaymentsHarness('payments_property', { capMultiple: 1000 });
});
after(async () => {
  await h?.close();
});

/**
 * A fetch that remembers every answer per URL and, when `stale` is on, answers with a random
 * earlier one: a lagging API replica, a cache, a duplicated or reordered response.
 */
function replayingFetch(pick: () => number) {
  const seen = new Map<string, { status: number; body: string; type: string }[]>();
  let stale = false;
  const f: typeof fetch = async (input, init) => {
    const url = String(input);
    const history = seen.get(url) ?? [];
    if (stale && history.length > 0) {
      const old = history[Math.floor(pick() * history.length)] as (typeof history)[number];
      return new Response(old.body, { status: old.status, headers: { 'content-type': old.type } });
    }
    const res = await fetch(input, init);
    const body = await res.text();
    history.push({ status: res.status, body, type: res.headers.get('content-type') ?? 'text/plain' });
    seen.set(url, history);
    return new Response(body, {
      status: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? '' },
    });
  };
  return {
    fetch: f,
    setStale(on: boolean) {
      stale = on;
    },
  };
}

/** A watcher of its own (as a restarted or second worker process would have) over the same database. */
function newWatcher(f?: typeof fetch): { watcher: PaymentWatcher; stop: () => Promise<void> } {
  const composition = compose({
    db: h.db,
    log: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    now: h.clock.now,
    settings: withSettingDefaults(
      { payments: testPaymentsSettings(h.chain, h.ticker, { fetch: f, capMultiple: 1000 }) },
      'http://issuer',
    ),
  });
  const w = composition.services.paymentWatcher;
  // Every pass polls (the back-off schedule has its own tests): what may happen between passes is the point here.
  const watchOnce = async () => {
    await h.makeDue();
    return w.watchOnce();
  };
  const watcher = { ...w, watchOnce };
  return { watcher, stop: () => composition.jobs.stop() };
}

type Step =
  | { kind: 'pay'; value: number; blocks: 0 | 1 | 2 }
  | { kind: 'mine'; blocks: number }
  | { kind: 'drop'; which: number }
  | { kind: 'watch' }
  | { kind: 'watchTwo' }
  | { kind: 'restart' }
  | { kind: 'watchStale' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('pay' as const),
    value: fc.integer({ min: 1, max: 40_000_000 }),
    blocks: fc.constantFrom(0 as const, 1 as const, 2 as const),
  }),
  fc.record({ kind: fc.constant('mine' as const), blocks: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('drop' as const), which: fc.nat() }),
  fc.constant({ kind: 'watch' as const }),
  fc.constant({ kind: 'watchTwo' as const }),
  fc.constant({ kind: 'restart' as const }),
  fc.constant({ kind: 'watchStale' as const }),
);

describe('exactly-once crediting', () => {
  test('any interleaving credits the confirmed value of the outputs exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 3, maxLength: 14 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        async (steps, seed) => {
          // Which old answer a stale pass gets: a small seeded generator, so a failure replays.
          let state = seed;
          const pick = () => {
            state = (state * 48271) % 2147483647;
            return state / 2147483647;
          };
          const { userId } = await h.customer();
          const charge = await h.services.payments.createCharge(
            { userId },
            { amount: cents(2000), type: 'ltc' },
          );
          const rateC = cents(8400);
          const paid: { txid: string; value: number; dropped: boolean; mined: boolean }[] = [];
          const replay = replayingFetch(pick);
          let current = newWatcher();
          const stale = newWatcher(replay.fetch);
          try {
            for (const step of steps) {
              switch (step.kind) {
                case 'pay': {
                  const txid = h.chain.ledger.pay({
                    chain: 'ltc',
                    address: charge.address,
                    value: BigInt(step.value),
                  });
                  paid.push({ txid, value: step.value, dropped: false, mined: false });
                  if (step.blocks > 0) h.chain.ledger.mine('ltc', step.blocks);
                  break;
                }
                case 'mine':
                  h.chain.ledger.mine('ltc', step.blocks);
                  break;
                case 'drop': {
                  const open = paid.filter((p) => !p.dropped);
                  const victim = open[step.which % Math.max(1, open.length)];
                  if (victim && h.chain.ledger.drop('ltc', victim.txid)) victim.dropped = true;
                  break;
                }
                case 'watch':
                  replay.setStale(false);
                  await stale.watcher.watchOnce();
                  break;
                case 'watchTwo':
                  await Promise.all([
                    current.watcher.watchOnce(),
                    h.makeDue().then(() => h.services.paymentWatcher.watchOnce()),
                  ]);
                  break;
                case 'restart':
                  await current.stop();
                  current = newWatcher();
                  await current.watcher.watchOnce();
                  break;
                case 'watchStale':
                  replay.setStale(true);
                  await stale.watcher.watchOnce();
                  replay.setStale(false);
                  break;
              }
            }
            // The chain settles: everything still there confirms deeply; then honest passes run.
            h.chain.ledger.mine('ltc', 3);
            await Promise.all([
              current.watcher.watchOnce(),
              h.makeDue().then(() => h.services.paymentWatcher.watchOnce()),
            ]);
            await h.makeDue();
            await h.services.paymentWatcher.watchOnce();
          } finally {
            await current.stop();
            await stale.stop();
          }
          const confirmed = paid.filter((p) => !p.dropped);
          const expected = confirmed.reduce((s, p) => s + creditCents(BigInt(p.value), rateC, 8), 0);
          const deposits = await h.db.query<{ amt_c: string; idem_key: string }>(
            "SELECT amt_c, idem_key FROM txrecords WHERE user_id = $1 AND type = 'deposit'",
            [userId],
          );
          const credited = deposits.reduce((s, d) => s + Number(d.amt_c), 0);
          assert.equal(credited, expected, `credited ${credited}, confirmed value ${expected}`);
          const creditedTx = new Set(deposits.map((d) => d.idem_key.split(':')[2]));
          for (const p of paid) {
            const worth = creditCents(BigInt(p.value), rateC, 8) > 0;
            assert.equal(creditedTx.has(p.txid), !p.dropped && worth, `tx ${p.txid} dropped=${p.dropped}`);
          }
          assert.equal(deposits.length, creditedTx.size, 'one deposit record per output');
          assert.equal(await h.balance(userId), credited);
          // Retire this run's charge so later runs' passes do not poll it again.
          await h.db.query(`UPDATE crypto_charges SET watch_until = 'epoch' WHERE user_id = $1`, [userId]);
        },
      ),
      {
        numRuns: RUNS,
        ...(process.env.PAYMENTS_PROPERTY_SEED ? { seed: Number(process.env.PAYMENTS_PROPERTY_SEED) } : {}),
      },
    );
  });
});
