import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameReader } from './frame-reader.ts';
import { FrameWriter } from './frame-writer.ts';
import { T_DATA, T_WINDOW } from './frames.ts';

/** Decodes written pieces back into `type:id:payload` lines, DATA pieces joined per frame. */
function decode(pieces: Buffer[]): string[] {
  const frames: string[] = [];
  const reader = new FrameReader({
    onData: (id, piece) => {
      const last = frames.at(-1);
      if (last?.startsWith(`${T_DATA}:${id}:`)) frames[frames.length - 1] = last + piece.toString();
      else frames.push(`${T_DATA}:${id}:${piece}`);
    },
    onFrame: (type, id, payload) => frames.push(`${type}:${id}:${payload}`),
    onProtocolError: (err) => assert.fail(err),
    isClosed: () => false,
  });
  reader.push(Buffer.concat(pieces));
  return frames;
}

test("tunnels' frames interleaved in the shared slab come out per tunnel, in order", () => {
  const a = new FrameWriter();
  const b = new FrameWriter();
  a.append(T_DATA, 1, Buffer.from('a1'));
  b.append(T_DATA, 7, Buffer.from('b1'));
  a.append(T_WINDOW, 1, Buffer.from('a2'));
  a.append(T_DATA, 3, Buffer.from('a3'));
  assert.deepEqual(decode(a.take().pieces), [`${T_DATA}:1:a1`, `${T_WINDOW}:1:a2`, `${T_DATA}:3:a3`]);
  assert.deepEqual(decode(b.take().pieces), [`${T_DATA}:7:b1`]);
  assert.deepEqual(a.take().pieces, [], 'taken once');
});

test('small frames of one tunnel are one piece; a large payload is queued by reference, not copied', () => {
  const w = new FrameWriter();
  w.append(T_DATA, 1, Buffer.alloc(1000, 97));
  w.append(T_WINDOW, 1, Buffer.alloc(4));
  assert.equal(w.take().pieces.length, 1, 'one write');
  const large = Buffer.alloc(100_000, 98);
  w.append(T_DATA, 2, large);
  w.append(T_DATA, 2, Buffer.from('tail'));
  const { pieces } = w.take();
  assert.equal(pieces.length, 3, 'header, payload, next frame');
  assert.equal(pieces[1], large, 'the payload itself');
  assert.deepEqual(decode(pieces), [`${T_DATA}:2:${large}tail`]);
});

test('a thousand tunnels with a frame each share one slab, not a buffer each', () => {
  const writers = Array.from({ length: 1000 }, () => new FrameWriter());
  for (const [i, w] of writers.entries()) w.append(T_WINDOW, i, Buffer.alloc(4));
  const slabs = new Set(writers.flatMap((w) => w.take().pieces.map((p) => p.buffer)));
  assert.ok(slabs.size <= 2, `${slabs.size} slabs`);
});

test('a slab comes back once its writes are done, and not before', () => {
  const w = new FrameWriter();
  /** About 200 KB of small frames in one batch. */
  const batch = (fill: number) => {
    for (let i = 0; i < 100; i++) w.append(T_DATA, 1, Buffer.alloc(2000, fill));
    return w.take();
  };
  // Fill past a slab while the first batch is still being written: its bytes must stay as they are.
  const first = batch(120);
  const firstBytes = Buffer.from(first.pieces[0]);
  const seen = new Set<ArrayBufferLike>([first.pieces[0].buffer]);
  const batches = [];
  for (let i = 0; i < 12; i++) {
    const b = batch(97 + i);
    for (const p of b.pieces) seen.add(p.buffer);
    batches.push(b);
  }
  assert.deepEqual(first.pieces[0], firstBytes, 'a held slab is not written over');
  assert.ok(seen.size >= 3, `${seen.size} slabs while held`);
  // Every write done: from now on two slabs serve (a batch that crosses the end of one holds it
  // while it takes the next), however much is staged.
  first.done();
  for (const b of batches) b.done();
  const after = new Set<ArrayBufferLike>();
  for (let i = 0; i < 12; i++) {
    const b = batch(65 + i);
    for (const p of b.pieces) after.add(p.buffer);
    b.done();
  }
  assert.ok(after.size <= 2, `${after.size} slabs once released`);
});
