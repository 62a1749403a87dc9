/**
 * `npm run bench:payments -- day`: chain requests over a simulated day instead (payments-day.ts).
 *
 * `npm run bench:payments`: how long one watcher pass takes over N open charges (default 10,000,
 * `BENCH_CHARGES`) against the devnet chain simulator on loopback, on a fresh PostgreSQL database
 * (DATABASE_URL or the local server). 1% of the addresses hold a confirmed payment, so the first
 * pass credits them (each a ledger transaction); the second pass is the steady state.
 * Prints one Markdown table row per pass for docs/benchmarks.md.
 */
import { cpus } from 'node:os';
import { type CurrencyId, PERMISSION_DEPOSIT } from '@pm/contracts';
import { cryptoCharges } from '@pm/db';
import { buildAccount, createTestDatabase } from '@pm/db/testing';
import { startChainSimulator, startTicker } from '@pm/devnet/chain';
import { compose } from '../src/compose.ts';
import { deriveAddress, parseAccountKey } from '../src/modules/payments/payments.address.ts';
import { withSettingDefaults } from '../src/platform/config.ts';
import { createLogger } from '../src/platform/logger.ts';
import { TEST_XPUBS, testPaymentsSettings } from '../src/test/app.ts';

if (process.argv[2] === 'day') {
  await import('./payments-day.ts');
} else {
  await passBench();
}

async function passBench() {
  const N = Number(process.env.BENCH_CHARGES ?? 10_000);
  const CURRENCY: CurrencyId = 'ltc';
  const PAID_EVERY = 100;

  const db = await createTestDatabase('bench_payments');
  const chain = await startChainSimulator({ host: '127.0.0.1', port: 0 });
  const ticker = await startTicker({ host: '127.0.0.1', port: 0 });
  try {
    const composition = compose({
      db,
      log: createLogger({ level: 'warn' }),
      settings: withSettingDefaults({ payments: testPaymentsSettings(chain, ticker) }, 'http://issuer'),
    });
    const { userId } = await buildAccount(db, { permissions: [PERMISSION_DEPOSIT] });
    const key = parseAccountKey(CURRENCY, TEST_XPUBS[CURRENCY]);
    const now = Date.now();
    const rows = [];
    const deriveStarted = performance.now();
    for (let i = 0; i < N; i++) {
      const address = deriveAddress(key, i);
      rows.push({
        id: crypto.randomUUID(),
        code: `B${String(i).padStart(11, '0')}`,
        userId,
        currency: CURRENCY,
        address,
        xpubFp: key.fingerprint,
        derivationIndex: i,
        amountUsdC: 2000 as never,
        rateC: 8400 as never,
        rateSource: 'kraken',
        dueBase: 23_809_524n,
        createdAt: new Date(now),
        expiresAt: new Date(now + 6 * 3600_000),
        watchUntil: new Date(now + 30 * 3600_000),
        nextCheckAt: new Date(now),
      });
      if (i % PAID_EVERY === 0) chain.ledger.pay({ chain: 'ltc', address, value: 23_809_524n });
    }
    chain.ledger.mine('ltc', 3);
    const deriveMs = performance.now() - deriveStarted;
    for (let i = 0; i < rows.length; i += 1000)
      await db.db.insert(cryptoCharges).values(rows.slice(i, i + 1000));

    console.log(
      `${N} open ${CURRENCY} charges (${N / PAID_EVERY} paid), ${cpus().length} cores; derived in ${Math.round(deriveMs)} ms`,
    );
    console.log('| Pass | Charges polled | Credited | Chain requests | Duration | Polls/s |');
    console.log('|---|---|---|---|---|---|');
    for (const name of ['first (credits)', 'steady state']) {
      // Every charge due (the back-off schedule would otherwise skip the ones just polled).
      await db.query(`UPDATE crypto_charges SET next_check_at = 'epoch'`);
      const requests = chain.requests();
      const started = performance.now();
      const [result] = await composition.services.paymentWatcher
        .watchOnce()
        .then((r) => r.filter((x) => x.currency === CURRENCY));
      const ms = performance.now() - started;
      console.log(
        `| ${name} | ${result?.polled} | ${result?.credited} | ${chain.requests() - requests} | ${(ms / 1000).toFixed(2)} s | ${Math.round(((result?.polled ?? 0) * 1000) / ms)} |`,
      );
    }
    await composition.jobs.stop();
  } finally {
    await chain.close();
    await ticker.close();
    await db.drop();
  }
}
