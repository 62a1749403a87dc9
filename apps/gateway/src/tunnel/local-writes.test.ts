import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { LocalWrites } from './local-writes.ts';
import { MuxStream } from './mux-stream.ts';

/** A local end that is no TCP socket and keeps the very buffers it is given, as a socket pair's end does. */
function keepingSink(id = 1): { stream: MuxStream; kept: Buffer[] } {
  const kept: Buffer[] = [];
  const st = new MuxStream(id, 0);
  st.socket = new Writable({
    write(chunk: Buffer, _enc, cb) {
      kept.push(chunk);
      cb();
    },
  }) as unknown as MuxStream['socket'];
  return { stream: st, kept };
}

test('a local end that is no TCP socket gets its own copy, not the reused slab', () => {
  const writes = new LocalWrites();
  const { stream, kept } = keepingSink();
  writes.stage(stream, Buffer.from('first'));
  writes.flush();
  writes.stage(stream, Buffer.from('other'));
  writes.flush();
  assert.deepEqual(
    kept.map((b) => b.toString()),
    ['first', 'other'],
  );
});

test("two streams' bytes interleaved in one slab reach each stream in order", () => {
  const written: string[] = [];
  const writes = new LocalWrites();
  const a = keepingSink();
  const b = keepingSink(2);
  for (const st of [a.stream, b.stream]) st.onLocalWritten = (n) => written.push(`${st.id}:${n}`);
  writes.stage(a.stream, Buffer.from('a1'));
  writes.stage(a.stream, Buffer.from('a2'));
  writes.stage(b.stream, Buffer.from('b1'));
  writes.stage(a.stream, Buffer.from('a3'));
  writes.flush();
  assert.deepEqual(
    a.kept.map((x) => x.toString()),
    ['a1a2', 'a3'],
  );
  assert.deepEqual(
    b.kept.map((x) => x.toString()),
    ['b1'],
  );
  assert.deepEqual(written, ['1:4', '1:2', '2:2']);
});
