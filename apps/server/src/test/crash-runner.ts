/**
 * A server process for the crash trials (apps/server/src/crash*.int.test.ts): the product's services
 * composed over one database, doing the work named by each line of stdin (a JSON work file),
 * printing `done <key>` after each piece commits and `finished` after the file. A trial kills it
 * with SIGKILL at a random moment and starts a new one on the same file first: the restart must
 * finish the work, as a client retrying with its Idempotency-Key (purchase, renew, port packages),
 * a customer asking again (refund) or the job's next run (settle, credit) would. The restarted
 * process then takes the next trial's work, so each trial costs one process start.
 * Usage: node crash-runner.ts <databaseUrl> [paymentsSettingsFile]
 *
 * A work file: `{ kind, items? }` with kind
 *   purchase  items `{ key, userId, agentId, exc, expPriceC }`: sales.sellLease under the key
 *   renew     items `{ key, userId, leaseId }`: renewals.renewLease under the key
 *   refund    items `{ key, userId, leaseId }`: refunds.refundLease (an ended lease's refusal is done)
 *   port-purchase    items `{ key, userId, request }`: ports.createPackage under the key
 *   port-reactivate  items `{ key, userId, packageId }`: ports.reactivatePackage under the key
 *   port-refund      items `{ key, userId, packageId }`: ports.refundPackage under the key
 *   settle    the lease jobs one lease at a time: expiry with auto-renew, then auto-refund
 *   credit    watcher passes with every charge due until a pass credits nothing
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { AppError, ZNewPortRequest } from '@pm/contracts';
import { createDb } from '@pm/db';
import { cents } from '@pm/money';
import { compose } from '../compose.ts';
import type { PaymentsSettings } from '../modules/payments/payments.config.ts';
import { createLogger } from '../platform/logger.ts';

interface Item {
  key: string;
  userId: string;
  agentId?: string;
  leaseId?: string;
  exc?: boolean;
  expPriceC?: number;
  packageId?: string;
  /** A port package's New-port request, as the client sends it. */
  request?: unknown;
}
interface Work {
  kind:
    | 'purchase'
    | 'renew'
    | 'refund'
    | 'settle'
    | 'credit'
    | 'port-purchase'
    | 'port-reactivate'
    | 'port-refund';
  items?: Item[];
}

const [databaseUrl, paymentsFile] = process.argv.slice(2);
const payments = paymentsFile
  ? (JSON.parse(readFileSync(paymentsFile, 'utf8')) as PaymentsSettings)
  : undefined;
const handle = await createDb({ databaseUrl: databaseUrl!, maxConnections: 4 });
const { services, close } = compose({
  db: handle,
  log: createLogger({ level: 'silent' }),
  settings: payments ? { payments } : {},
});
const done = (key: string) => process.stdout.write(`done ${key}\n`);
const customer = (userId: string) => ({ userId, email: `${userId}@example.com`, isStaff: false });

/** The refusal a retry of a finished refund gets (the lease has ended): the trial checks it was refunded. */
const finishedRefusal = (e: unknown) =>
  e instanceof AppError &&
  (e.details as { errorCode?: string } | undefined)?.errorCode === 'leaseNotEligible';

const creditedCount = async () =>
  (
    await handle.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM crypto_payments WHERE state = 'credited'",
    )
  )[0]!.n;

async function run(work: Work): Promise<void> {
  for (const item of work.items ?? []) {
    if (work.kind === 'purchase') {
      await services.sales.sellLease(item.userId, {
        kind: 'purchase',
        agentId: item.agentId!,
        exc: item.exc!,
        expPriceC: cents(item.expPriceC!),
        idemKey: item.key,
      });
    } else if (work.kind === 'renew') {
      await services.renewals.renewLease(item.userId, item.leaseId!, item.key);
    } else if (work.kind === 'port-purchase') {
      await services.ports.createPackage(
        customer(item.userId),
        ZNewPortRequest.parse(item.request),
        item.key,
      );
    } else if (work.kind === 'port-reactivate') {
      await services.ports.reactivatePackage(customer(item.userId), item.packageId!, item.key);
    } else if (work.kind === 'port-refund') {
      await services.ports.refundPackage(customer(item.userId), item.packageId!, item.key);
    } else if (work.kind === 'refund') {
      try {
        await services.refunds.refundLease(item.userId, item.leaseId!);
      } catch (e) {
        if (!finishedRefusal(e)) throw e;
      }
    }
    done(item.key);
  }
  if (work.kind === 'settle') {
    for (let i = 0; i < 10_000; i++) {
      const due = await services.settle.settleDueLeases(1);
      const failing = await services.settle.autoRefundFailing(1);
      const ids = [...due.renewed, ...due.ended, ...due.refunded, ...failing.refunded];
      for (const id of ids) done(id);
      if (ids.length === 0) break;
    }
  }
  if (work.kind === 'credit') {
    for (let i = 0; i < 20; i++) {
      await handle.query("UPDATE crypto_charges SET next_check_at = 'epoch' WHERE next_check_at > 'epoch'");
      const before = await creditedCount();
      await services.paymentWatcher.watchOnce();
      const credited = (await creditedCount()) - before;
      done(`pass ${i} credited ${credited}`);
      if (credited === 0 && i > 0) break;
    }
  }
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  await run(JSON.parse(readFileSync(line.trim(), 'utf8')) as Work);
  process.stdout.write('finished\n');
}
await close();
await handle.close();
