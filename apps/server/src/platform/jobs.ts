/**
 * Background jobs: each job is data (`defineJob`), run by pg-boss in the same PostgreSQL (or PGlite)
 * as everything else. Any process may send; only the worker role runs handlers and cron schedules.
 */
import type { Db, DbHandle, Tx } from '@pm/db';
import { type Job, type JobResult, PgBoss } from 'pg-boss';
import { Counter, type Registry } from 'prom-client';
import type { z } from 'zod';
import type { FeatureSettings } from './config.ts';
import { toBossDb } from './jobs-db.ts';
import type { Logger } from './logger.ts';

/** How a failed run is retried: `limit` more tries, `delaySeconds` apart, doubling when `backoff`. */
export interface RetryPolicy {
  limit: number;
  delaySeconds: number;
  backoff: boolean;
  /** Cap on the delay between tries when backing off. */
  maxDelaySeconds: number;
}

/** Three more tries at about 5, 10 and 20 seconds (pg-boss adds jitter), as Outline's BaseTask does. */
export const DEFAULT_RETRY: RetryPolicy = { limit: 3, delaySeconds: 5, backoff: true, maxDelaySeconds: 300 };

/** A background job as data: name, payload schema, retry policy, optional cron, and a thin handler. */
export interface JobDefinition<P, S> {
  /** Queue name, `<feature>.<verb>` (letters, digits, `.`, `-`, `_`). */
  name: string;
  payload: z.ZodType<P>;
  retry: RetryPolicy;
  /** A run taking longer than this counts as failed and is retried. */
  timeoutSeconds: number;
  /** When the worker role sends the job by itself, with `payload` (see JobSchedule). */
  schedule?: JobSchedule<P> | undefined;
  /**
   * Calls the feature's service; throwing fails the run (and retries it). A batch passes
   * `context.failures` on to `settleEach`, so one item that throws is skipped, not the whole run.
   */
  handler(payload: P, services: S, context: JobContext): Promise<unknown>;
}

/** Where a batch reports an item it skipped because settling it threw. */
export interface ItemFailures {
  /** Logs the item's id with the error and counts it (`jobs_item_failures_total{job}`). */
  failed(id: string, err: unknown): void;
}

/** What a running handler gets besides its payload and services. */
export interface JobContext {
  failures: ItemFailures;
}

/** Failures nobody watches: a batch called outside a job (tests, a staff action) still skips the item. */
export const UNREPORTED: ItemFailures = { failed: () => {} };

/**
 * Settles a batch one item per transaction: `next` locks the next item due, leaving out `skip` (the
 * items that failed in this run; SKIP LOCKED lets two workers take different ones), and `settle`
 * does its work under a savepoint. An item whose work throws is rolled back to the savepoint,
 * reported to `failures` and left out for the rest of the run, so one bad row never stops the
 * others; the next run tries it again. A failure of `next` (the database) still fails the run.
 * At most `limit` items; `failed` holds the ids skipped.
 */
export async function settleEach<I extends { id: string }, R>(
  db: Db,
  batch: {
    limit: number;
    failures: ItemFailures;
    next(skip: readonly string[], tx: Tx): Promise<I | undefined>;
    settle(item: I, tx: Tx): Promise<R>;
  },
): Promise<{ settled: R[]; failed: string[] }> {
  const settled: R[] = [];
  const failed: string[] = [];
  for (let i = 0; i < batch.limit; i++) {
    const done = await db.transaction(async (tx) => {
      const item = await batch.next(failed, tx);
      if (!item) return false;
      try {
        settled.push(await tx.transaction((sp) => batch.settle(item, sp)));
      } catch (err) {
        failed.push(item.id);
        batch.failures.failed(item.id, err);
      }
      return true;
    });
    if (!done) break;
  }
  return { settled, failed };
}

/**
 * Runs `work` for each item of a list read before the run (no row lock to hold), `concurrency` at a
 * time; an item that throws is reported to `failures` and the others go on. Answers the results of
 * the items that worked, in no particular order when concurrent.
 */
export async function forEachItem<I, R>(
  items: readonly I[],
  each: { idOf(item: I): string; failures: ItemFailures; concurrency?: number },
  work: (item: I) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        results.push(await work(item));
      } catch (err) {
        each.failures.failed(each.idOf(item), err);
      }
    }
  };
  const workers = Math.max(1, Math.min(each.concurrency ?? 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}

/**
 * A job's own schedule: a cron expression (UTC, a minute at the finest), or every `everySeconds`
 * (1-60; a number, or read from the feature settings, none when that answers undefined) for
 * schedules shorter than a minute. An `everySeconds` job runs once per slot of that many seconds
 * of the database's clock however many workers send it (pg-boss `singletonSeconds`), and its
 * queue holds at most one waiting and one running (policy `stately`), so a slow run never
 * piles up a backlog or runs beside the next.
 */
export type JobSchedule<P> =
  | { cron: string; payload: P }
  | { everySeconds: number | ((settings: FeatureSettings) => number | undefined); payload: P };

/** A job definition of any payload, as module lists hold them. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds jobs of many payload types; each checks its own with zod.
export type AnyJob<S> = JobDefinition<any, S>;

/** Builds a job definition; `retry` fields not given come from DEFAULT_RETRY, `timeoutSeconds` defaults to 15 minutes. */
export function defineJob<P, S>(
  definition: Omit<JobDefinition<P, S>, 'retry' | 'timeoutSeconds'> & {
    retry?: Partial<RetryPolicy>;
    timeoutSeconds?: number;
  },
): JobDefinition<P, S> {
  return {
    ...definition,
    retry: { ...DEFAULT_RETRY, ...definition.retry },
    timeoutSeconds: definition.timeoutSeconds ?? 15 * 60,
  };
}

/** A job with its handler bound to the services it needs, ready for a worker. */
export interface RunnableJob {
  // biome-ignore lint/suspicious/noExplicitAny: see AnyJob.
  definition: AnyJob<any>;
  run(payload: unknown, context: JobContext): Promise<unknown>;
  /** An `everySeconds` schedule read from the settings (bindModuleJobs resolves it). */
  everySeconds?: number | undefined;
}

/** Seconds between runs of an `everySeconds` schedule, or undefined (cron or none). */
export function intervalOf(job: AnyJob<unknown>, settings: FeatureSettings = {}): number | undefined {
  const schedule = job.schedule;
  if (!schedule || !('everySeconds' in schedule)) return undefined;
  const every =
    typeof schedule.everySeconds === 'function' ? schedule.everySeconds(settings) : schedule.everySeconds;
  if (every === undefined) return undefined;
  if (!Number.isInteger(every) || every < 1 || every > 60) {
    throw new Error(`job ${job.name}: everySeconds must be a whole number from 1 to 60, got ${every}`);
  }
  return every;
}

/** Options of one send. */
export interface SendOptions {
  /** Run no earlier than this many seconds from now. */
  delaySeconds?: number;
  /** Only one queued job per key: a second send with the same key is dropped (answers null). */
  singletonKey?: string;
}

/** What services use to schedule work. */
export interface JobQueue {
  /** Checks the payload with the job's schema and queues it; the job id, or null when a singleton was dropped. */
  send<P>(job: JobDefinition<P, unknown>, payload: P, options?: SendOptions): Promise<string | null>;
}

/** The runtime a process holds: send in every role, work in the worker role, stop on shutdown. */
export interface JobRuntime extends JobQueue {
  /** Starts workers and cron schedules for these jobs; only a runtime created with `isWorker`. */
  work(jobs: readonly RunnableJob[]): Promise<void>;
  /** Stops workers, waiting up to `timeoutMs` for running handlers; sends fail afterwards. */
  stop(timeoutMs?: number): Promise<void>;
}

/** What the runtime runs on. */
export interface JobRuntimeOptions {
  db: DbHandle;
  log: Logger;
  /** The worker role: runs handlers, cron schedules and pg-boss maintenance. Others only send. */
  isWorker: boolean;
  /** How often an idle worker looks for new jobs; default 2000 ms, at least 500. */
  pollingIntervalMs?: number;
  /** Where `jobs_item_failures_total{job}` is registered (the process's `/metrics`). */
  metrics?: Registry | undefined;
}

function queueOptions(job: AnyJob<unknown>) {
  return {
    ...(job.schedule && 'everySeconds' in job.schedule ? { policy: 'stately' as const } : {}),
    retryLimit: job.retry.limit,
    retryDelay: job.retry.delaySeconds,
    retryBackoff: job.retry.backoff,
    ...(job.retry.backoff ? { retryDelayMax: job.retry.maxDelaySeconds } : {}),
    expireInSeconds: job.timeoutSeconds,
  };
}

/** Jobs one worker claims per fetch; while fetches come back full it fetches again at once. */
const BATCH_SIZE = 5;

/**
 * The pg-boss runtime over the app's database. pg-boss starts on first use (creating its schema
 * `pgboss`), so a process that never sends costs nothing. Two workers on one database never run
 * one job twice at once: pg-boss claims each job with SELECT … FOR UPDATE SKIP LOCKED.
 */
export function createJobRuntime(options: JobRuntimeOptions): JobRuntime {
  const log = options.log.child({ component: 'jobs' });
  const itemFailures = new Counter({
    name: 'jobs_item_failures_total',
    help: 'Items a batch job skipped because settling them threw (logged with their id), by job',
    labelNames: ['job'],
    registers: options.metrics ? [options.metrics] : [],
  });
  const boss = new PgBoss({
    db: toBossDb(options.db),
    backend: options.db.kind === 'pglite' ? 'pglite' : 'postgres',
    supervise: options.isWorker,
    schedule: options.isWorker,
  });
  boss.on('error', (err) => log.error({ err }, 'pg-boss error'));
  boss.on('warning', (warning) => log.warn({ warning }, 'pg-boss warning'));
  let started: Promise<unknown> | undefined;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const queues = new Map<string, Promise<void>>();

  const ensureQueue = (job: AnyJob<unknown>): Promise<void> => {
    if (stopped) return Promise.reject(new Error('job runtime is stopped'));
    let created = queues.get(job.name);
    if (!created) {
      started ??= boss.start();
      created = started.then(() => boss.createQueue(job.name, queueOptions(job)));
      // A failed start or create is retried by the next call instead of being remembered.
      created.catch(() => queues.delete(job.name));
      queues.set(job.name, created);
    }
    return created;
  };

  /**
   * Sends `name` for the current slot of `every` seconds now and every half slot (so no slot is
   * missed to timer drift); the slot's first send wins in every worker, the rest are dropped.
   */
  const everySlot = (name: string, every: number, data: object): NodeJS.Timeout => {
    const tick = () => {
      if (stopped) return;
      boss
        .send(name, data, { singletonSeconds: every })
        .catch((err: unknown) => log.warn({ err, job: name }, 'could not send a scheduled job'));
    };
    tick();
    const timer = setInterval(tick, (every * 1000) / 2);
    timer.unref();
    return timer;
  };

  return {
    async send(job, payload, sendOptions = {}) {
      const data = job.payload.parse(payload) as object;
      await ensureQueue(job);
      return boss.send(job.name, data, {
        ...(sendOptions.delaySeconds ? { startAfter: sendOptions.delaySeconds } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
      });
    },

    async work(jobs) {
      if (!options.isWorker) throw new Error('work() needs a runtime created with isWorker');
      const pollingIntervalSeconds = Math.max(0.5, (options.pollingIntervalMs ?? 2000) / 1000);
      for (const job of jobs) {
        const { definition } = job;
        await ensureQueue(definition);
        const workOptions = {
          pollingIntervalSeconds,
          batchSize: BATCH_SIZE,
          burstWhenBatchFull: true,
          perJobResults: true,
        } as const;
        await boss.work(definition.name, workOptions, (claimed) =>
          Promise.all(claimed.map((one) => runJob(job, one, log, itemFailures))),
        );
        if (definition.schedule) {
          const data = definition.payload.parse(definition.schedule.payload) as object;
          if ('cron' in definition.schedule) {
            await boss.schedule(definition.name, definition.schedule.cron, data, { tz: 'UTC' });
          } else {
            const every = job.everySeconds ?? intervalOf(definition);
            if (every !== undefined) timers.push(everySlot(definition.name, every, data));
          }
        }
      }
    },

    async stop(timeoutMs = 10_000) {
      if (stopped) return;
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      // The database handle is the app's: pg-boss must not close it (it never does for a `db` adapter).
      if (started)
        await started.then(
          () => boss.stop({ graceful: true, timeout: timeoutMs }),
          () => {},
        );
    },
  };
}

/**
 * Runs one claimed job: parses its payload and calls the bound handler. A failure is retried per
 * the job's policy; a payload that does not parse never will, so it fails for good at once. Items
 * a batch skips are logged with their ids and counted in `counter` under the job's name.
 */
export async function runJob(
  job: RunnableJob,
  claimed: Job<unknown>,
  log: Logger,
  counter?: Counter<'job'>,
): Promise<JobResult> {
  const context = { job: job.definition.name, id: claimed.id, attempt: claimed.retryCount + 1 };
  const failures: ItemFailures = {
    failed(item, err) {
      log.error({ ...context, item, err }, 'job item failed and was skipped');
      counter?.inc({ job: job.definition.name });
    },
  };
  const parsed = job.definition.payload.safeParse(claimed.data);
  if (!parsed.success) {
    log.error({ ...context, issues: parsed.error.issues }, 'job payload does not match its schema');
    return { id: claimed.id, status: 'deadletter', output: { message: 'payload does not match the schema' } };
  }
  const started = Date.now();
  try {
    await job.run(parsed.data, { failures });
    log.debug({ ...context, durationMs: Date.now() - started }, 'job done');
    return { id: claimed.id, status: 'completed' };
  } catch (err) {
    log.warn({ ...context, err }, 'job failed');
    return { id: claimed.id, status: 'failed', output: { message: (err as Error)?.message ?? String(err) } };
  }
}
