/**
 * Test helpers for payments: a fresh database, the devnet chain simulator and ticker on loopback,
 * a movable clock shared by server and simulator, the composed services (to run watcher passes)
 * and the API over the same composition.
 */
import { PERMISSION_DEPOSIT, STAFF_PERMISSIONS } from '@pm/contracts';
import { accounts } from '@pm/db';
import { buildAccount, createTestDatabase, newUserId, type TestDatabase } from '@pm/db/testing';
import { type ChainSimulator, startChainSimulator, startTicker, type Ticker } from '@pm/devnet/chain';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { type Composition, compose } from '../compose.ts';
import type { PaymentsSettings } from '../modules/payments/payments.config.ts';
import { withSettingDefaults } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { TEST_AUDIENCE, TEST_METRICS_TOKEN, testPaymentsSettings } from './app.ts';
import { startTestIssuer, type TestIssuer } from './issuer.ts';

export interface PaymentsHarness {
  db: TestDatabase;
  chain: ChainSimulator;
  ticker: Ticker;
  services: Composition['services'];
  app: FastifyInstance;
  issuer: TestIssuer;
  clock: { now(): number; advance(ms: number): void };
  /** A customer account (DEPOSIT unless `deposit: false`), optionally invited by a refcode. */
  customer(o?: { deposit?: boolean; referredBy?: string }): Promise<{ userId: string; refcode: string }>;
  auth(userId: string, permissions?: string[]): Promise<Record<string, string>>;
  staffAuth(userId: string): Promise<Record<string, string>>;
  balance(userId: string): Promise<number>;
  /** Makes every charge due for a poll now (tests that run passes back to back, past the schedule). */
  makeDue(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the harness; `settings` override the simulator-backed defaults (e.g. `bonusPct`);
 * `serverUrl` puts its database on another PostgreSQL (the outage test's own cluster).
 */
export async function createPaymentsHarness(
  label: string,
  settings: Partial<PaymentsSettings> = {},
  serverUrl?: string,
): Promise<PaymentsHarness> {
  const db = await createTestDatabase(label, serverUrl);
  let nowMs = Date.now();
  const clock = {
    now: () => nowMs,
    advance(ms: number) {
      nowMs += ms;
    },
  };
  const chain = await startChainSimulator({ host: '127.0.0.1', port: 0, now: clock.now });
  const ticker = await startTicker({ host: '127.0.0.1', port: 0 });
  const issuer = await startTestIssuer(TEST_AUDIENCE);
  const oidc = {
    issuer: issuer.issuer,
    audience: TEST_AUDIENCE,
    algorithms: ['ES256'],
    permissionsClaim: 'permissions',
  };
  const composition = compose({
    db,
    log: createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    now: clock.now,
    settings: withSettingDefaults(
      { payments: testPaymentsSettings(chain, ticker, settings), metricsToken: TEST_METRICS_TOKEN },
      issuer.issuer,
    ),
  });
  const app = await buildApp({ db, oidc, composition });
  await app.ready();
  const auth = async (userId: string, permissions: string[] = []) => ({
    authorization: `Bearer ${await issuer.sign(userId, { permissions, email: `${userId}@example.test` })}`,
  });
  return {
    db,
    chain,
    ticker,
    services: composition.services,
    app,
    issuer,
    clock,
    async customer(o = {}) {
      const row = await buildAccount(db, { permissions: o.deposit === false ? [] : [PERMISSION_DEPOSIT] });
      if (o.referredBy) {
        await db.db.update(accounts).set({ referredBy: o.referredBy }).where(eq(accounts.userId, row.userId));
      }
      return { userId: row.userId, refcode: row.refcode };
    },
    auth,
    staffAuth: (userId = newUserId('staff')) => auth(userId, [...STAFF_PERMISSIONS]),
    async balance(userId) {
      const rows = await db.query<{ balance_c: string }>(
        'SELECT balance_c FROM accounts WHERE user_id = $1',
        [userId],
      );
      return Number(rows[0]?.balance_c);
    },
    async makeDue() {
      await db.query(`UPDATE crypto_charges SET next_check_at = 'epoch' WHERE next_check_at > 'epoch'`);
    },
    async close() {
      await app.close();
      await composition.jobs.stop();
      await chain.close();
      await ticker.close();
      await issuer.close();
      await db.drop();
    },
  };
}
