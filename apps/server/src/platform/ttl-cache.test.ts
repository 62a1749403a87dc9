import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTtlCache } from './ttl-cache.ts';

function setup(o: { ttlMs?: number; staleMs?: number; maxEntries?: number } = {}) {
  let clock = 0;
  let loads = 0;
  const cache = createTtlCache<string>({
    ttlMs: 1000,
    staleMs: 2000,
    maxEntries: 10,
    ...o,
    clock: () => clock,
  });
  const deferred: { resolve(v: string): void; reject(e: Error): void }[] = [];
  const load = () => {
    loads++;
    return new Promise<string>((resolve, reject) => deferred.push({ resolve, reject }));
  };
  return {
    cache,
    load,
    deferred,
    loads: () => loads,
    tick: (ms: number) => {
      clock += ms;
    },
  };
}
const settle = () => new Promise((r) => setImmediate(r));

test('concurrent gets of one key share one load; the value is then served until ttlMs', async () => {
  const s = setup();
  const a = s.cache.get('k', s.load);
  const b = s.cache.get('k', s.load);
  s.deferred[0]!.resolve('v1');
  assert.deepEqual(await Promise.all([a, b]), ['v1', 'v1']);
  assert.equal(s.loads(), 1);
  s.tick(999);
  assert.equal(await s.cache.get('k', s.load), 'v1');
  assert.equal(s.loads(), 1);
});

test('past ttlMs the stale value is served while one background load refreshes it; past staleMs the caller waits', async () => {
  const s = setup();
  const first = s.cache.get('k', s.load);
  s.deferred[0]!.resolve('v1');
  await first;
  s.tick(1500);
  assert.equal(await s.cache.get('k', s.load), 'v1');
  assert.equal(await s.cache.get('k', s.load), 'v1');
  assert.equal(s.loads(), 2, 'one refresh');
  s.deferred[1]!.resolve('v2');
  await settle();
  assert.equal(await s.cache.get('k', s.load), 'v2');
  s.tick(3000);
  const waiting = s.cache.get('k', s.load);
  s.deferred[2]!.resolve('v3');
  assert.equal(await waiting, 'v3');
});

test('a value is as old as the start of its load', async () => {
  const s = setup();
  const p = s.cache.get('k', s.load);
  s.tick(900);
  s.deferred[0]!.resolve('v1');
  await p;
  s.tick(200);
  void s.cache.get('k', s.load);
  assert.equal(s.loads(), 2, 'stale at 1100 ms since the load began');
});

test('clear drops values and loads in flight; fresh skips the value and stores the new one', async () => {
  const s = setup();
  const p = s.cache.get('k', s.load);
  s.cache.clear();
  s.deferred[0]!.resolve('old');
  assert.equal(await p, 'old', 'the caller still gets its answer');
  const q = s.cache.get('k', s.load);
  s.deferred[1]!.resolve('new');
  assert.equal(await q, 'new');
  const f = s.cache.get('k', s.load, { fresh: true });
  s.deferred[2]!.resolve('newer');
  assert.equal(await f, 'newer');
  assert.equal(await s.cache.get('k', s.load), 'newer');
  assert.equal(s.loads(), 3);
});

test('a failed load is not cached and a failed refresh keeps the stale value', async () => {
  const s = setup();
  const p = s.cache.get('k', s.load);
  s.deferred[0]!.reject(new Error('boom'));
  await assert.rejects(p, /boom/);
  assert.equal(s.cache.size, 0);
  const q = s.cache.get('k', s.load);
  s.deferred[1]!.resolve('v');
  await q;
  s.tick(1500);
  assert.equal(await s.cache.get('k', s.load), 'v');
  s.deferred[2]!.reject(new Error('refresh failed'));
  await settle();
  assert.equal(await s.cache.get('k', s.load), 'v');
  assert.equal(s.loads(), 4, 'the next get past ttl tries again');
});

test('keeps at most maxEntries, dropping the least recently used; ttlMs 0 never caches', async () => {
  const s = setup({ maxEntries: 2 });
  for (const k of ['a', 'b']) {
    const p = s.cache.get(k, s.load);
    s.deferred.at(-1)!.resolve(k);
    await p;
  }
  await s.cache.get('a', s.load);
  const c = s.cache.get('c', s.load);
  s.deferred.at(-1)!.resolve('c');
  await c;
  assert.equal(s.cache.size, 2);
  assert.equal(await s.cache.get('a', s.load), 'a');
  assert.equal(s.loads(), 3, 'a was kept; b went');

  const off = setup({ ttlMs: 0 });
  const x = off.cache.get('k', off.load);
  const y = off.cache.get('k', off.load);
  off.deferred.forEach((d) => {
    d.resolve('v');
  });
  await Promise.all([x, y]);
  assert.equal(off.loads(), 2);
});

test('delete drops one key and its load in flight; the other keys stay', async () => {
  const s = setup();
  const a = s.cache.get('a', s.load);
  s.deferred[0]!.resolve('a1');
  await a;
  const b = s.cache.get('b', s.load);
  s.cache.delete('b');
  s.deferred[1]!.resolve('b-old');
  assert.equal(await b, 'b-old', 'the caller still gets its answer');
  s.cache.delete('a');
  const again = s.cache.get('a', s.load);
  s.deferred[2]!.resolve('a2');
  assert.equal(await again, 'a2');
  const b2 = s.cache.get('b', s.load);
  s.deferred[3]!.resolve('b-new');
  assert.equal(await b2, 'b-new', 'the load in flight when deleted was not stored');
  assert.equal(await s.cache.get('a', s.load), 'a2');
  assert.equal(s.loads(), 4);
});
