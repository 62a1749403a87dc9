import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  MAX_RECORD_PLAINTEXT,
  Opener,
  RECORD_HEADER_BYTES,
  RecordError,
  recordBytes,
  Sealer,
  sealedRecordsAddon,
  TAG_BYTES,
} from './sealed-records.ts';

const native = sealedRecordsAddon();
const key = crypto.randomBytes(16);
const iv = crypto.randomBytes(12);

function addon() {
  assert.ok(native, 'the addon is built by npm install (apps/gateway/native/build.ts)');
  return native;
}

/** Seals each message (at most one record's worth) into one stream of records. */
function sealAll(messages: Buffer[]): Buffer {
  const sealer = new Sealer(addon(), key, iv);
  const out = Buffer.alloc(messages.reduce((n, m) => n + recordBytes(m.length), 0));
  let at = 0;
  for (const m of messages) at += sealer.seal([m], out, at);
  assert.equal(at, out.length);
  return out;
}

function openAll(stream: Buffer, cuts: number[]): Buffer[] {
  const opener = new Opener(addon(), key, iv);
  const got: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts.filter((c) => c < stream.length).sort((a, b) => a - b), stream.length]) {
    // A copy per read, as a socket's shared read buffer would be.
    opener.push(Buffer.from(stream.subarray(from, cut)), (plain) => got.push(Buffer.from(plain)));
    from = cut;
  }
  assert.equal(opener.midRecord, false);
  return got;
}

test('the sealed-record addon is built', () => {
  assert.equal(typeof addon().seal, 'function');
});

test('records come out as they went in, however the stream is cut into reads', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: MAX_RECORD_PLAINTEXT }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (sizes, rawCuts) => {
        const messages = sizes.map((n) => crypto.randomBytes(n));
        const stream = sealAll(messages);
        const cuts = rawCuts.map((c) => c % (stream.length + 1));
        assert.deepEqual(openAll(stream, cuts), messages);
      },
    ),
    { numRuns: 200 },
  );
});

test('a record is AES-128-GCM with the header as additional data and the TLS 1.3 nonce', () => {
  const messages = [Buffer.from('first'), Buffer.from('second record')];
  const stream = sealAll(messages);
  let at = 0;
  messages.forEach((message, seq) => {
    const n = stream.readUInt32BE(at);
    const nonce = Buffer.from(iv);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8);
    const d = crypto.createDecipheriv('aes-128-gcm', key, nonce);
    d.setAAD(stream.subarray(at, at + RECORD_HEADER_BYTES));
    d.setAuthTag(stream.subarray(at + RECORD_HEADER_BYTES + n - TAG_BYTES, at + RECORD_HEADER_BYTES + n));
    const plain = Buffer.concat([
      d.update(stream.subarray(at + RECORD_HEADER_BYTES, at + RECORD_HEADER_BYTES + n - TAG_BYTES)),
      d.final(),
    ]);
    assert.deepEqual(plain, message);
    at += RECORD_HEADER_BYTES + n;
  });
});

test('a changed byte anywhere in a record fails it, and every record after it', () => {
  const stream = sealAll([Buffer.from('hello tunnel'), Buffer.from('next')]);
  const first = recordBytes(12);
  for (let i = RECORD_HEADER_BYTES; i < first; i++) {
    const forged = Buffer.from(stream);
    forged[i] ^= 0x01;
    const opener = new Opener(addon(), key, iv);
    assert.throws(
      () => opener.push(forged.subarray(0, first), () => assert.fail('a forged record was opened')),
      RecordError,
    );
    assert.throws(
      () => opener.push(Buffer.from(stream.subarray(first)), () => assert.fail('opened after a failure')),
      RecordError,
    );
  }
});

test('records replayed, dropped or reordered fail', () => {
  const messages = [Buffer.from('one'), Buffer.from('two'), Buffer.from('three')];
  const stream = sealAll(messages);
  const r = (i: number) => stream.subarray(i * recordBytes(3), (i + 1) * recordBytes(3));
  const third = stream.subarray(2 * recordBytes(3));
  for (const order of [
    [r(0), r(0)],
    [r(0), third],
    [r(1), r(0)],
  ]) {
    const opener = new Opener(addon(), key, iv);
    const got: string[] = [];
    assert.throws(() => {
      for (const rec of order) opener.push(Buffer.from(rec), (p) => got.push(p.toString()));
    }, RecordError);
    assert.ok(got.length <= 1);
  }
});

test('a length outside what a record can hold is refused before anything is gathered', () => {
  for (const n of [0, TAG_BYTES - 1, MAX_RECORD_PLAINTEXT + TAG_BYTES + 1, 0xffffffff]) {
    const header = Buffer.alloc(RECORD_HEADER_BYTES);
    header.writeUInt32BE(n);
    const opener = new Opener(addon(), key, iv);
    assert.throws(() => opener.push(header, () => {}), RecordError, `length ${n}`);
  }
});

test('a record sealed with another key does not open', () => {
  const stream = sealAll([Buffer.from('secret')]);
  const opener = new Opener(addon(), crypto.randomBytes(16), iv);
  assert.throws(() => opener.push(stream, () => {}), RecordError);
});
