import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createDb, type DbHandle, migrateDb } from './client.ts';
import { createPgRateCounter, type PaceSchedule, sweepRateLimits } from './rate-limits.ts';
import { createTestDatabase } from './testing.ts';

const SCHEDULE: PaceSchedule = {
  freeFailures: 2,
  baseDelayMs: 10_000,
  maxDelayMs: 40_000,
  forgetAfterMs: 3_600_000,
};

/** The same checks on both drivers. */
function counterTests(open: () => Promise<DbHandle>) {
  let h: DbHandle;
  let now = 1_800_000_000_000;
  const clock = () => now;

  test('open', async () => {
    h = await open();
  });

  test('two counters on one database count one window: 30 parallel hits give 1..30 once each', async () => {
    const a = createPgRateCounter(h, clock);
    const b = createPgRateCounter(h, clock);
    const hits = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hit('k:par', 60_000)),
    );
    assert.deepEqual(
      hits.map((x) => x.hits).sort((x, y) => x - y),
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.ok(hits.every((x) => x.resetAtMs === now + 60_000));
  });

  test('the hits of one turn share one statement: every key counts 1..n once, a failure rejects each', async () => {
    const statements: string[] = [];
    const counting = {
      query: <T>(text: string, params?: unknown[]) => {
        statements.push(text);
        return h.query<T>(text, params);
      },
    };
    const c = createPgRateCounter(counting, clock);
    const keys = ['k:b1', 'k:b2', 'k:b3'];
    const hits = await Promise.all(Array.from({ length: 30 }, (_, i) => c.hit(keys[i % 3]!, 60_000)));
    assert.equal(statements.length, 1);
    for (const [k, key] of keys.entries()) {
      const mine = hits.filter((_, i) => i % 3 === k).map((x) => x.hits);
      assert.deepEqual(
        mine,
        Array.from({ length: 10 }, (_, i) => i + 1),
        key,
      );
    }
    // The next turn counts on from there.
    assert.equal((await c.hit('k:b2', 60_000)).hits, 11);
    const broken = createPgRateCounter({ query: () => Promise.reject(new Error('database gone')) }, clock);
    const failed = await Promise.allSettled([broken.hit('k:x', 1000), broken.hit('k:y', 1000)]);
    assert.deepEqual(
      failed.map((f) => f.status === 'rejected' && (f.reason as Error).message),
      ['database gone', 'database gone'],
    );
  });

  test('a window that ended starts over at 1; giveBack and clear', async () => {
    const c = createPgRateCounter(h, clock);
    assert.equal((await c.hit('k:w', 1000)).hits, 1);
    assert.equal((await c.hit('k:w', 1000)).hits, 2);
    await c.giveBack('k:w');
    assert.equal((await c.hit('k:w', 1000)).hits, 2);
    now += 1000;
    const fresh = await c.hit('k:w', 1000);
    assert.deepEqual(fresh, { hits: 1, resetAtMs: now + 1000 });
    await c.clear('k:w');
    assert.equal((await c.hit('k:w', 1000)).hits, 1);
  });

  test('pace: free hits, then a doubling wait up to the cap; parallel callers share no slot', async () => {
    const c = createPgRateCounter(h, clock);
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
    // The 2nd hit is the last free one; it sets a 10 s wait. Of 10 parallel attempts one passes.
    const parallel = await Promise.all(Array.from({ length: 10 }, () => c.pace('k:p', SCHEDULE)));
    assert.equal(parallel.filter((x) => x.ok).length, 1);
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: false, retryAfterMs: 10_000 });
    now += 10_000;
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: false, retryAfterMs: 20_000 });
    now += 20_000;
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
    now += 40_000;
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: false, retryAfterMs: 40_000 });
    // Forgotten after a quiet hour.
    now += SCHEDULE.forgetAfterMs;
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
    assert.deepEqual(await c.pace('k:p', SCHEDULE), { ok: true });
  });

  test('the sweep deletes only ended windows', async () => {
    const c = createPgRateCounter(h, clock);
    await c.hit('k:old', 1000);
    await c.hit('k:live', 60_000);
    const swept = await sweepRateLimits(h, now + 1000);
    assert.ok(swept >= 1);
    const keys = (await h.query<{ key: string }>('SELECT key FROM rate_limits')).map((r) => r.key);
    assert.ok(!keys.includes('k:old'));
    assert.ok(keys.includes('k:live'));
  });
}

describe('rate counter on PostgreSQL', () => {
  let drop: (() => Promise<void>) | undefined;
  after(() => drop?.());
  counterTests(async () => {
    const t = await createTestDatabase('ratelimits');
    drop = () => t.drop();
    return t;
  });
});

describe('rate counter on PGlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-rl-'));
  let handle: DbHandle | undefined;
  after(async () => {
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  counterTests(async () => {
    handle = await createDb({ dataDir: dir });
    await migrateDb(handle);
    return handle;
  });
});
