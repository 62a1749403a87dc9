/**
 * The lifecycle jobs exactly once: two worker processes settle the same due leases while one is
 * killed with SIGKILL in the middle of a run (inside a transaction that has moved money); a restart
 * finishes. Every lease is renewed, ended or refunded exactly once, and every balance equals the
 * sum of its ledger records.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  buildAccount,
  buildAgent,
  buildLease,
  buildNode,
  buildTrafficHour,
  createTestDatabase,
  type TestDatabase,
} from '@pm/db/testing';
import { cents } from '@pm/money';
import { waitFor } from '@pm/testkit';
import { createLedgerService } from '../ledger/ledger.service.ts';
import { createLeaseService } from './leases.service.ts';
import { createSettleService } from './leases.settle.ts';

const WORKER = fileURLToPath(new URL('../../test/settle-worker.ts', import.meta.url));
const KINDS = ['renews', 'poor', 'plain', 'failing'] as const;
type Kind = (typeof KINDS)[number];

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('lease_settle_crash');
});
after(async () => {
  await db.drop();
});

function startWorker(holdMs: number): {
  child: ChildProcess;
  settled: string[];
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [WORKER, db.url, String(holdMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const settled: string[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line.startsWith('settled ')) settled.push(line.slice(8));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, settled, exited };
}

test('two workers and a kill -9 mid-run: each lease settled once, balances equal their ledgers', {
  timeout: 120_000,
}, async () => {
  const nodeId = (await buildNode(db)).id;
  const leases: { id: string; userId: string; kind: Kind }[] = [];
  const nowMs = Date.now();
  for (let i = 0; i < 48; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const account = await buildAccount(db, { balanceC: kind === 'poor' ? 50 : 5000 });
    const agent = await buildAgent(db, { nodeId });
    const lease = await buildLease(db, agent.id, {
      userId: account.userId,
      exc: true,
      start: new Date(nowMs - 24 * 3600_000 - 60_000),
      // Failing leases are running; the others reached their end a minute ago.
      untilMs: kind === 'failing' ? nowMs + 3600_000 : nowMs - 60_000,
      purchasePriceC: cents(1000),
      autoRenew: kind === 'renews' || kind === 'poor',
      ...(kind === 'failing' ? { reqs: 20, fails: 10 } : {}),
    });
    // The auto-refund reads the last hour: half of it failed by the agent.
    if (kind === 'failing') {
      await buildTrafficHour(db, lease.id, { hour: new Date(nowMs), reqs: 20, fails: 10, agentFails: 10 });
    }
    leases.push({ id: lease.id, userId: account.userId, kind });
  }

  const a = startWorker(40);
  const b = startWorker(40);
  // Kill A once it has committed a few leases: it is then inside its next transaction, holding a debit.
  await waitFor(() => a.settled.length >= 3, {
    timeoutMs: 30_000,
    what: 'worker A settled some leases before the kill',
  });
  a.child.kill('SIGKILL');
  assert.equal(await a.exited, null);
  assert.equal(await b.exited, 0);
  assert.ok(b.settled.length > 0, 'both workers took leases');
  // The restart: whatever A held when it died is still due and settled now.
  const ledger = createLedgerService({ db: db.db });
  const settle = createSettleService({ db: db.db, ledger, leases: createLeaseService({ db: db.db }) });
  await settle.settleDueLeases();
  await settle.autoRefundFailing();
  assert.deepEqual(await settle.settleDueLeases(), { renewed: [], ended: [], refunded: [] });

  for (const l of leases) {
    const [row] = await db.query<{ renewals: number; end_reason: string | null; ended_at: Date | null }>(
      'SELECT renewals, end_reason, ended_at FROM leases WHERE id = $1',
      [l.id],
    );
    const records = await db.query<{ type: string; amt_c: string }>(
      "SELECT type, amt_c FROM txrecords WHERE user_id = $1 AND type IN ('renewal', 'refund')",
      [l.userId],
    );
    const expected = {
      renews: { renewals: 1, end_reason: null, records: [['renewal', -1000]] },
      poor: { renewals: 0, end_reason: 'autoRenewNoFunds', records: [] },
      plain: { renewals: 0, end_reason: 'expired', records: [] },
      failing: { renewals: 0, end_reason: 'autoRefunded', records: [['refund', 1000]] },
    }[l.kind];
    assert.deepEqual(
      {
        renewals: row!.renewals,
        end_reason: row!.end_reason,
        records: records.map((r) => [r.type, Number(r.amt_c)]),
      },
      expected,
      `${l.kind} lease ${l.id}`,
    );
    const [books] = await db.query<{ bal: string; sum: string }>(
      'SELECT a.balance_c AS bal, (SELECT coalesce(sum(amt_c), 0) FROM txrecords t WHERE t.user_id = a.user_id) AS sum FROM accounts a WHERE a.user_id = $1',
      [l.userId],
    );
    assert.equal(Number(books!.bal), Number(books!.sum), `books of ${l.userId}`);
  }
  // No lease was reported settled by both workers.
  const both = a.settled.filter((id) => b.settled.includes(id));
  assert.deepEqual(both, []);
});
