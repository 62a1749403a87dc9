import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlabPool } from './slab-pool.ts';

test('a full slab nobody holds starts over; a held one is left until released, then reused', () => {
  const pool = new SlabPool(100, 1);
  const a = pool.room(60);
  a.used = 60;
  assert.equal(pool.room(60), a, 'not held: the same slab, from its start');
  assert.equal(a.used, 0);
  a.holds++;
  a.used = 60;
  const b = pool.room(60);
  assert.notEqual(b, a, 'held: a new slab');
  b.holds++;
  b.used = 60;
  a.release();
  assert.equal(pool.room(60), a, 'released: back from the spares');
  assert.equal(a.used, 0);
});

test('the pool keeps at most its spare count of released slabs', () => {
  const pool = new SlabPool(10, 1);
  const held = [pool.current];
  for (let i = 0; i < 3; i++) {
    pool.current.holds++;
    pool.current.used = 10;
    held.push(pool.room(10));
  }
  for (const s of held.slice(0, 3)) s.release();
  pool.current.holds++;
  pool.current.used = 10;
  const next = pool.room(10);
  assert.ok(held.slice(0, 3).includes(next), 'one spare came back');
  next.holds++;
  next.used = 10;
  assert.ok(!held.includes(pool.room(10)), 'the others were dropped');
});
