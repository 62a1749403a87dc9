/**
 * Crash trials of port packages (issue 34): a server process is killed with SIGKILL at a random
 * moment of package purchases, reactivations and refunds under Idempotency-Keys, then started again
 * on the same work, as a client retrying with its keys would. After every trial: every balance
 * equals its ledger, every package has one charge per generation and every port charge its
 * package, each refund credited once, and each piece of work done exactly once. CRASH_TRIALS sets
 * the trials per kind (default 10).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ZNewPortRequest } from '@pm/contracts';
import { buildAccount, buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { compose } from './compose.ts';
import type { PortsService } from './modules/ports/ports.service.ts';
import { createLogger } from './platform/logger.ts';
import { createTestApp, type TestApp } from './test/app.ts';
import { createCrashTrials } from './test/crash-trials.ts';

const TRIALS = Number(process.env.CRASH_TRIALS ?? 10);
/** The seeded table's price of 1 Gb, 100 ports, 1 day, city depth. */
const PRICE_C = 390;
const ITEMS = 6;

let t: TestApp;
let ports: PortsService;
let dir: string;
let crash: ReturnType<typeof createCrashTrials>;
before(async () => {
  t = await createTestApp('crash_ports', { payments: false });
  ports = compose({ db: t.db, log: createLogger({ level: 'silent' }) }).services.ports;
  dir = mkdtempSync(join(tmpdir(), 'pm-crash-ports-'));
  crash = createCrashTrials({ dir, trials: TRIALS });
});
after(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * A node of its own for one batch, with one exit in a city of its own, so each batch's packages
 * take that node's ports. Its heartbeat is old: a refund needs no flush from a node that is gone.
 */
async function batchPlace(kind: string, trial: number): Promise<string> {
  const city = `Crash ${kind} ${trial}`;
  const node = await buildNode(t.db, { lastHeartbeat: new Date(Date.now() - 3600_000) });
  await buildAgent(t.db, { nodeId: node.id, cc: 'US', reg: 'Crash', city, conn: 'wifi' });
  return city;
}
const requestIn = (userId: string, city: string) => ({
  user_id: userId,
  price: PRICE_C,
  time_period: 1,
  traffic: { type: 'limit', amount: 1 },
  geo: { country: 'US', state: 'Crash', city, connection_type: 'both' },
  access: { type: 'auth', port_amount: 100 },
  switch: { type: 'timer', timer: 5 },
});
const caller = (userId: string) => ({ userId, email: `${userId}@example.com`, isStaff: false });

/** Customers of one batch, each with a package bought before the trial (for reactivation and refund). */
async function holders(kind: string, trial: number, balanceC: number) {
  const city = await batchPlace(kind, trial);
  const items = [];
  for (let i = 0; i < ITEMS; i++) {
    const { userId } = await buildAccount(t.db, { userId: newUserId('crash'), balanceC });
    const pkg = await ports.createPackage(caller(userId), ZNewPortRequest.parse(requestIn(userId, city)));
    items.push({ key: `${kind}-${trial}-${i}`, userId, packageId: pkg.id });
  }
  return items;
}

/** Every balance equals its ledger; every package has one charge per generation and one credit per refund. */
async function assertPortBooks(): Promise<void> {
  const off = await t.db.query<{ user_id: string }>(
    `SELECT a.user_id FROM accounts a LEFT JOIN txrecords r ON r.user_id = a.user_id
      GROUP BY a.user_id, a.balance_c HAVING a.balance_c <> coalesce(sum(r.amt_c), 0)`,
  );
  assert.deepEqual(off, [], 'balances that differ from their ledgers');
  const wrong = await t.db.query<{ id: string; charges: number; credits: number }>(
    `SELECT p.id,
        (SELECT count(*)::int FROM txrecords r WHERE r.type = 'port' AND r.memo LIKE '%package ' || p.id || '%') AS charges,
        (SELECT count(*)::int FROM txrecords r WHERE r.type = 'refund' AND r.memo LIKE '%package ' || p.id || '%') AS credits
       FROM port_packages p
      WHERE (SELECT count(*) FROM txrecords r WHERE r.type = 'port' AND r.memo LIKE '%package ' || p.id || '%') <> p.generation
         OR (SELECT count(*) FROM txrecords r WHERE r.type = 'refund' AND r.memo LIKE '%package ' || p.id || '%')
            <> CASE WHEN p.status = 'refunded' AND p.refunded_c > 0 THEN 1 ELSE 0 END`,
  );
  assert.deepEqual(wrong, [], 'packages without one charge per generation and one credit per refund');
  const orphans = await t.db.query<{ memo: string }>(
    `SELECT r.memo FROM txrecords r WHERE r.type = 'port'
        AND NOT EXISTS (SELECT 1 FROM port_packages p WHERE r.memo LIKE '%package ' || p.id || '%')`,
  );
  assert.deepEqual(orphans, [], 'port charges without their package');
}

const packagesOf = (userId: string) =>
  t.db.query<{ id: string; status: string; generation: number; refunded_c: string | null }>(
    'SELECT id, status, generation, refunded_c FROM port_packages WHERE user_id = $1',
    [userId],
  );
type Items = { items: { key: string; userId: string; packageId?: string }[] };

describe('crash trials of port packages', { concurrency: false }, () => {
  test(`package purchase: ${TRIALS} kills, each key buys one package and charges once`, {
    timeout: 600_000,
  }, async () => {
    await crash.trials(
      'port-purchase',
      t.db.url,
      async (trial) => {
        const city = await batchPlace('purchase', trial);
        const items = [];
        for (let i = 0; i < ITEMS; i++) {
          const { userId } = await buildAccount(t.db, { userId: newUserId('buyer'), balanceC: 5000 });
          items.push({ key: `port-buy-${trial}-${i}`, userId, request: requestIn(userId, city) });
        }
        return { kind: 'port-purchase', items };
      },
      async (_trial, work) => {
        await assertPortBooks();
        for (const item of (work as Items).items) {
          const packages = await packagesOf(item.userId);
          assert.equal(packages.length, 1, `${item.key}: one package`);
          const [key] = await t.db.query<{ package_id: string }>(
            'SELECT package_id FROM sale_requests WHERE user_id = $1 AND idem_key = $2',
            [item.userId, item.key],
          );
          assert.equal(key?.package_id, packages[0]!.id, `${item.key}: the key answers its package`);
        }
      },
    );
  });

  test(`package reactivation: ${TRIALS} kills, each reactivates once and charges once`, {
    timeout: 600_000,
  }, async () => {
    await crash.trials(
      'port-reactivate',
      t.db.url,
      async (trial) => {
        const items = await holders('reactivate', trial, 5000);
        await t.db.query("UPDATE port_packages SET status = 'suspend' WHERE id = ANY($1)", [
          items.map((i) => i.packageId),
        ]);
        return { kind: 'port-reactivate', items };
      },
      async (_trial, work) => {
        await assertPortBooks();
        for (const item of (work as Items).items) {
          const [pkg] = await packagesOf(item.userId);
          assert.deepEqual([pkg?.status, pkg?.generation], ['active', 2], `${item.key}: reactivated once`);
        }
      },
    );
  });

  test(`package refund: ${TRIALS} kills, each refund ends the package and credits once`, {
    timeout: 600_000,
  }, async () => {
    await crash.trials(
      'port-refund',
      t.db.url,
      async (trial) => ({ kind: 'port-refund', items: await holders('refund', trial, 1000) }),
      async (_trial, work) => {
        await assertPortBooks();
        for (const item of (work as Items).items) {
          const [pkg] = await packagesOf(item.userId);
          assert.deepEqual(
            [pkg?.status, Number(pkg?.refunded_c)],
            ['refunded', PRICE_C],
            `${item.key}: refunded in full (no traffic)`,
          );
        }
      },
    );
  });

  after(() => {
    console.log(`crash trials: ${JSON.stringify(crash.figures)}`);
  });
});
