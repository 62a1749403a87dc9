/**
 * A lifecycle-jobs worker as a child process, for the crash test: settles due leases and refunds
 * failing ones one at a time on its own connections, printing `settled <id>` after each commit.
 * Every ledger move waits `holdMs` inside its transaction, so a SIGKILL lands mid-transaction.
 * Usage: node settle-worker.ts <databaseUrl> <holdMs>
 */
import { createDb } from '@pm/db';
import { createLeaseService } from '../modules/leases/leases.service.ts';
import { createSettleService } from '../modules/leases/leases.settle.ts';
import { createLedgerService } from '../modules/ledger/ledger.service.ts';

const [databaseUrl, holdArg] = process.argv.slice(2);
const holdMs = Number(holdArg ?? 20);
const handle = await createDb({ databaseUrl: databaseUrl!, maxConnections: 2 });
const ledger = createLedgerService({ db: handle.db });
const slowLedger: typeof ledger = {
  ...ledger,
  async move(input, tx) {
    const result = await ledger.move(input, tx);
    await new Promise((r) => setTimeout(r, holdMs)); // sleeps: holds the debit's transaction open, a window for the crash
    return result;
  },
  // Renewals charge through the sale path's debit.
  async charge(input, tx) {
    const result = await ledger.charge(input, tx);
    await new Promise((r) => setTimeout(r, holdMs)); // sleeps: holds the debit's transaction open, a window for the crash
    return result;
  },
};
const settle = createSettleService({
  db: handle.db,
  ledger: slowLedger,
  leases: createLeaseService({ db: handle.db }),
});
for (let i = 0; i < 10_000; i++) {
  const due = await settle.settleDueLeases(1);
  const failing = await settle.autoRefundFailing(1);
  const ids = [...due.renewed, ...due.ended, ...failing.refunded];
  for (const id of ids) process.stdout.write(`settled ${id}\n`);
  if (ids.length === 0) break;
}
await handle.close();
