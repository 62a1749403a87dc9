/**
 * `npm run bench:payments -- day`: chain API requests of the watcher over a simulated day. 1,000
 * charges of each currency (BTC, LTC, USDT TRC-20) are created evenly over 24 hours of a movable
 * clock; 10 % are paid 5 minutes after creation (USDT at once solidified, BTC/LTC mined 6 blocks
 * deep), the rest abandoned. A watcher pass runs every 30 simulated seconds until every charge's
 * watch window has ended (about 55 hours), against the devnet chain simulator on loopback and a
 * fresh PostgreSQL database. The requests per chain are what 1,000 new charges a day cost a day in
 * a steady state. Prints a Markdown table for docs/benchmarks.md.
 */
import { cpus } from 'node:os';
import { type CurrencyId, PERMISSION_DEPOSIT } from '@pm/contracts';
import { buildAccount, createTestDatabase } from '@pm/db/testing';
import { type SimChainId, startChainSimulator, startTicker } from '@pm/devnet/chain';
import { cents } from '@pm/money';
import { compose } from '../src/compose.ts';
import { withSettingDefaults } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { testPaymentsSettings } from '../src/test/app.ts';

const N = Number(process.env.BENCH_CHARGES ?? 1000);
const PAID_EVERY = 10;
const DAY = 24 * 3600_000;
const PASS_MS = 30_000;
const CURRENCIES: { currency: CurrencyId; chain: SimChainId }[] = [
  { currency: 'btc', chain: 'btc' },
  { currency: 'ltc', chain: 'ltc' },
  { currency: 'trc20usdt', chain: 'tron' },
];

const db = await createTestDatabase('bench_payments_day');
let nowMs = Date.parse('2026-11-02T00:00:00Z');
const clock = () => nowMs;
const chain = await startChainSimulator({ host: '127.0.0.1', port: 0, now: clock });
const ticker = await startTicker({ host: '127.0.0.1', port: 0 });
try {
  const settings = testPaymentsSettings(chain, ticker, {
    // Production schedule, confirmations and day budgets; pacing off (it is wall-clock time).
    confirmations: { btc: 1, ltc: 3 },
    budgets: {
      btc: { perSecond: 100_000, perDay: 20_000 },
      ltc: { perSecond: 100_000, perDay: 20_000 },
      tron: { perSecond: 100_000, perDay: 50_000 },
    },
    maxOpenCharges: 100,
  });
  const composition = compose({
    db,
    log: createLogger({ level: 'error' }),
    now: clock,
    settings: withSettingDefaults({ payments: settings }, 'http://issuer'),
  });
  const { payments, paymentWatcher } = composition.services;
  // Charges to create, in time order: one per currency every 24 h / N.
  const plan = Array.from({ length: N * CURRENCIES.length }, (_, i) => ({
    at: nowMs + Math.floor(i / CURRENCIES.length) * (DAY / N),
    ...(CURRENCIES[i % CURRENCIES.length] as (typeof CURRENCIES)[number]),
    paid: Math.floor(i / CURRENCIES.length) % PAID_EVERY === 0,
  }));
  const payLater: { at: number; chain: SimChainId; address: string; amount: string }[] = [];
  const users = await Promise.all(
    Array.from({ length: 50 }, () => buildAccount(db, { permissions: [PERMISSION_DEPOSIT] })),
  );
  const start = nowMs;
  const end = start + DAY + 31 * 3600_000 + 60_000;
  const started = performance.now();
  let passes = 0;
  const overBudget: Partial<Record<CurrencyId, number>> = {};
  const credited: Partial<Record<CurrencyId, number>> = {};
  let next = 0;
  for (; nowMs <= end; nowMs += PASS_MS) {
    for (; next < plan.length && (plan[next] as (typeof plan)[number]).at <= nowMs; next++) {
      const p = plan[next] as (typeof plan)[number];
      const user = users[next % users.length] as (typeof users)[number];
      const c = await payments.createCharge(
        { userId: user.userId },
        { amount: cents(2000 + next), type: p.currency },
      );
      if (p.paid)
        payLater.push({ at: nowMs + 5 * 60_000, chain: p.chain, address: c.address, amount: c.amount });
    }
    for (const pay of payLater.filter((x) => x.at <= nowMs)) {
      chain.pay(pay.chain, pay.address, pay.amount, pay.chain === 'tron' ? 1 : 6);
      payLater.splice(payLater.indexOf(pay), 1);
    }
    const results = await paymentWatcher.watchOnce();
    passes++;
    for (const r of results) {
      overBudget[r.currency] = (overBudget[r.currency] ?? 0) + (r.overBudget ? 1 : 0);
      credited[r.currency] = (credited[r.currency] ?? 0) + r.credited;
    }
  }
  const ms = performance.now() - started;
  console.log(
    `${N} charges per currency over a simulated day (${N / PAID_EVERY} paid each), ${passes} passes every 30 s until the last watch window ended; ${cpus().length} cores; ${(ms / 1000).toFixed(0)} s wall`,
  );
  console.log(
    '| Chain API | Requests (1,000 charges) | Per charge | Day budget | Passes over budget | Credited |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const { currency, chain: c } of CURRENCIES) {
    const name = c === 'tron' ? 'TronGrid (USDT)' : `Esplora ${c.toUpperCase()}`;
    const n = chain.requests(c);
    const budget = settings.budgets[c].perDay;
    console.log(
      `| ${name} | ${n.toLocaleString('en-US')} | ${(n / N).toFixed(1)} | ${budget.toLocaleString('en-US')} | ${overBudget[currency] ?? 0} | ${credited[currency] ?? 0} |`,
    );
  }
  await composition.jobs.stop();
} finally {
  await chain.close();
  await ticker.close();
  await db.drop();
}
