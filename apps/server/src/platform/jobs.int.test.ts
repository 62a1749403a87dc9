import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDb, migrateDb } from '@pm/db';
import { buildAgent, buildLease, buildNode, createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { z } from 'zod';
import { bindModuleJobs, compose } from '../compose.ts';
import { expireLeasesJob } from '../modules/leases/leases.jobs.ts';
import {
  createJobRuntime,
  defineJob,
  intervalOf,
  type JobDefinition,
  type JobRuntime,
  type RunnableJob,
} from './jobs.ts';
import { createLogger } from './logger.ts';

const log = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A job bound to a test's own handler. */
const bind = <P>(definition: JobDefinition<P, unknown>, run: (p: P) => Promise<unknown>): RunnableJob => ({
  definition,
  run: (payload) => run(payload as P),
});

describe('jobs on PostgreSQL', () => {
  let db: TestDatabase;
  const runtimes: JobRuntime[] = [];
  const worker = () => {
    const runtime = createJobRuntime({ db, log, isWorker: true, pollingIntervalMs: 500 });
    runtimes.push(runtime);
    return runtime;
  };
  before(async () => {
    db = await createTestDatabase('jobs');
  });
  after(async () => {
    for (const r of runtimes) await r.stop(2000);
    await db?.drop();
  });

  test('with two workers, every job runs exactly once', { timeout: 60_000 }, async () => {
    const job = defineJob({
      name: 'test.once',
      payload: z.object({ n: z.number().int() }),
      handler: async () => {},
    });
    const runs: string[] = [];
    const [a, b] = [worker(), worker()];
    for (const [name, runtime] of [
      ['a', a],
      ['b', b],
    ] as const) {
      await runtime!.work([
        bind(job, async ({ n }) => {
          runs.push(`${name}:${n}`);
          await new Promise((r) => setTimeout(r, 20)); // sleeps: a run takes a moment, so the two workers overlap
        }),
      ]);
    }
    for (let n = 0; n < 40; n++) await a!.send(job, { n });
    await waitFor(() => runs.length >= 40, { timeoutMs: 30_000, what: '40 runs' });
    // A second claim of any job would show up within a few polls.
    await new Promise((r) => setTimeout(r, 1500)); // sleeps: a second claim would show within a few polls (500 ms)
    const numbers = runs.map((r) => Number(r.split(':')[1]));
    assert.equal(runs.length, 40, runs.join(' '));
    assert.equal(new Set(numbers).size, 40);
  });

  test('a failing run is retried with back-off, then completes', { timeout: 60_000 }, async () => {
    const job = defineJob({
      name: 'test.flaky',
      payload: z.object({}),
      retry: { limit: 3, delaySeconds: 1, backoff: true },
      handler: async () => {},
    });
    const attempts: number[] = [];
    await worker().work([
      bind(job, async () => {
        attempts.push(Date.now());
        if (attempts.length < 3) throw new Error(`attempt ${attempts.length} fails`);
      }),
    ]);
    await runtimes.at(-1)!.send(job, {});
    await waitFor(() => attempts.length >= 3, { timeoutMs: 30_000, what: 'three attempts' });
    const [first, second, third] = attempts as [number, number, number];
    // pg-boss waits delay·2^(n-1) to delay·2^n seconds before retry n (jitter), plus a poll.
    assert.ok(second - first >= 900, `first retry after ${second - first} ms`);
    assert.ok(third - second >= 1900, `second retry after ${third - second} ms`);
    await waitFor(
      async () =>
        (await db.query<{ state: string }>(`SELECT state FROM pgboss.job WHERE name = 'test.flaky'`))[0]
          ?.state === 'completed',
      { timeoutMs: 5000, what: 'completed state' },
    );
    const [row] = await db.query<{ retry_count: number }>(
      `SELECT retry_count FROM pgboss.job WHERE name = 'test.flaky'`,
    );
    assert.equal(row?.retry_count, 2);
  });

  test('a payload that does not match the schema is refused at send', async () => {
    const job = defineJob({
      name: 'test.typed',
      payload: z.object({ id: z.string() }),
      handler: async () => {},
    });
    const sender = createJobRuntime({ db, log, isWorker: false });
    runtimes.push(sender);
    await assert.rejects(sender.send(job, { id: 5 } as unknown as { id: string }), /expected string/);
    assert.ok(await sender.send(job, { id: 'x' }));
  });

  test('an everySeconds schedule runs once per slot with two workers, never two at once', {
    timeout: 60_000,
  }, async () => {
    const job = defineJob({
      name: 'test.every',
      payload: z.object({}).strict(),
      schedule: { everySeconds: 1, payload: {} },
      retry: { limit: 0 },
      handler: async () => {},
    });
    const runs: { worker: string; at: number }[] = [];
    let running = 0;
    let overlapped = false;
    const started = Date.now();
    for (const name of ['a', 'b']) {
      const runtime = createJobRuntime({ db, log, isWorker: true, pollingIntervalMs: 500 });
      runtimes.push(runtime);
      await runtime.work([
        bind(job, async () => {
          running++;
          if (running > 1) overlapped = true;
          runs.push({ worker: name, at: Date.now() });
          // A run longer than the slot: the next slot's job waits, later slots are dropped.
          await new Promise((r) => setTimeout(r, runs.length === 1 ? 2500 : 50)); // sleeps: a run longer than the 1 s slot
          running--;
        }),
      ]);
    }
    await waitFor(() => runs.length >= 4, { timeoutMs: 20_000, what: 'four scheduled runs' });
    await new Promise((r) => setTimeout(r, 1000)); // sleeps: one more slot, in which no second run may start
    const seconds = (Date.now() - started) / 1000;
    assert.ok(!overlapped, 'two runs at once');
    // Two workers each send every half second: without slots there would be ~4 sends a second.
    assert.ok(runs.length <= Math.ceil(seconds) + 1, `${runs.length} runs in ${seconds} s`);
    const queued = await db.query<{ policy: string }>(
      "SELECT policy FROM pgboss.queue WHERE name = 'test.every'",
    );
    assert.deepEqual(queued, [{ policy: 'stately' }]);
  });

  test('everySeconds is refused outside 1-60 and may come from the settings', () => {
    const from = (everySeconds: number | (() => number | undefined)) =>
      defineJob({
        name: 'test.bad',
        payload: z.object({}),
        schedule: { everySeconds, payload: {} },
        handler: async () => {},
      });
    assert.throws(() => intervalOf(from(0)), /from 1 to 60, got 0/);
    assert.throws(() => intervalOf(from(90)), /got 90/);
    assert.equal(intervalOf(from(() => 15)), 15);
    assert.equal(intervalOf(from(() => undefined)), undefined);
  });

  test('leases.expire ends every lease past its end and keeps its cron schedule', {
    timeout: 60_000,
  }, async () => {
    const node = await buildNode(db);
    const agent = await buildAgent(db, { nodeId: node.id });
    const past = await buildLease(db, agent.id, { untilMs: Date.now() - 60_000, authPort: 20001 });
    const current = await buildLease(db, agent.id);
    const composition = compose({ db, log, isWorker: true, jobPollingIntervalMs: 500 });
    runtimes.push(composition.jobs);
    await composition.jobs.work(bindModuleJobs(composition));
    await composition.jobs.send(expireLeasesJob, {});
    const endedOf = async (id: string) =>
      (await db.query<{ ended_at: Date | null }>('SELECT ended_at FROM leases WHERE id = $1', [id]))[0]
        ?.ended_at;
    await waitFor(async () => (await endedOf(past.id)) != null, {
      timeoutMs: 15_000,
      what: 'the past lease ended',
    });
    assert.equal((await endedOf(past.id))?.getTime(), past.until.getTime());
    assert.equal(await endedOf(current.id), null);
    const schedules = await db.query<{ name: string; cron: string }>(
      "SELECT name, cron FROM pgboss.schedule WHERE name = 'leases.expire'",
    );
    assert.deepEqual(schedules, [{ name: 'leases.expire', cron: '* * * * *' }]);
  });
});

describe('jobs on PGlite (the embedded default of npm start)', () => {
  test('a worker runs a sent job, retries a failing one and keeps an everySeconds schedule', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-jobs-pglite-'));
    const lite = await createDb({ dataDir: dir });
    const runtime = createJobRuntime({ db: lite, log, isWorker: true, pollingIntervalMs: 500 });
    try {
      await migrateDb(lite);
      const job = defineJob({
        name: 'test.lite',
        payload: z.object({ n: z.number() }),
        retry: { limit: 2, delaySeconds: 1, backoff: false },
        handler: async () => {},
      });
      const seen: number[] = [];
      let hasFailedOnce = false;
      await runtime.work([
        bind(job, async ({ n }) => {
          if (n === 2 && !hasFailedOnce) {
            hasFailedOnce = true;
            throw new Error('the first try of job 2 fails');
          }
          seen.push(n);
        }),
      ]);
      for (const n of [1, 2, 3]) await runtime.send(job, { n });
      await waitFor(() => seen.length >= 3, { timeoutMs: 20_000, what: 'three jobs' });
      assert.deepEqual([...seen].sort(), [1, 2, 3]);
      assert.ok(hasFailedOnce);
      // An everySeconds schedule on PGlite too (npm start's workers).
      let ticks = 0;
      const every = defineJob({
        name: 'test.lite-every',
        payload: z.object({}).strict(),
        schedule: { everySeconds: 1, payload: {} },
        retry: { limit: 0 },
        handler: async () => {},
      });
      const startedAt = Date.now();
      await runtime.work([
        bind(every, async () => {
          ticks++;
        }),
      ]);
      await waitFor(() => ticks >= 2, { timeoutMs: 20_000, what: 'two scheduled runs on PGlite' });
      assert.ok(ticks <= Math.ceil((Date.now() - startedAt) / 1000) + 1, `${ticks} runs`);
    } finally {
      await runtime.stop(2000);
      await lite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
