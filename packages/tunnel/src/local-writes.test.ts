import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { test } from 'node:test';
import { LocalWrites } from './local-writes.ts';
import { MuxStream } from './mux-stream.ts';

/** A local end that records each system-call-sized batch it is handed (one `writev` per uncork). */
function batchingSink(id = 1): { stream: MuxStream; batches: string[][] } {
  const batches: string[][] = [];
  const st = new MuxStream(id, 0);
  st.socket = new Duplex({
    read() {},
    writev(chunks, cb) {
      batches.push(chunks.map((c) => String(c.chunk)));
      cb();
    },
    write(chunk: Buffer, _enc, cb) {
      batches.push([chunk.toString()]);
      cb();
    },
  });
  return { stream: st, batches };
}

test("two streams' payloads of one iteration reach each socket in one batch, in order", () => {
  const counted: string[] = [];
  const writes = new LocalWrites();
  const a = batchingSink();
  const b = batchingSink(2);
  for (const st of [a.stream, b.stream]) st.onLocalWritten = (n, ok) => counted.push(`${st.id}:${n}:${ok}`);
  writes.stage(a.stream, Buffer.from('a1'));
  writes.stage(a.stream, Buffer.from('a2'));
  writes.stage(b.stream, Buffer.from('b1'));
  writes.stage(a.stream, Buffer.from('a3'));
  assert.deepEqual([a.batches, b.batches], [[], []], 'nothing written before the flush');
  writes.flush();
  assert.deepEqual(a.batches, [['a1', 'a2', 'a3']]);
  assert.deepEqual(b.batches, [['b1']]);
  assert.deepEqual(counted, ['1:2:true', '1:2:true', '2:2:true', '1:2:true']);
});

test('flushIfFew writes a few bytes at once and leaves a bulk read for the flush', () => {
  const writes = new LocalWrites();
  const a = batchingSink();
  writes.stage(a.stream, Buffer.from('request'));
  assert.equal(writes.flushIfFew(), true);
  assert.deepEqual(a.batches, [['request']]);
  writes.stage(a.stream, Buffer.alloc(8000, 120));
  assert.equal(writes.flushIfFew(), false);
  assert.equal(a.batches.length, 1, 'still corked');
  writes.flush();
  assert.equal(a.batches.length, 2);
});
