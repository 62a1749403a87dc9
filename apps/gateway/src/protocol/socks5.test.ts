import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  encodeAddress,
  encodeGreeting,
  encodeMethodSelection,
  encodeReply,
  encodeRequest,
  encodeUserPass,
  encodeUserPassStatus,
  parseGreeting,
  parseReply,
  parseRequest,
  parseUserPass,
  replyCodeForError,
  SocksParseError,
} from './socks5.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('greeting (RFC 1928 section 3)', () => {
  test('parses VER NMETHODS METHODS', () => {
    assert.deepEqual(parseGreeting(hex('05 02 00 02')), { value: [0, 2], length: 4 });
  });
  test('incomplete input asks for more', () => {
    assert.equal(parseGreeting(hex('05')), undefined);
    assert.equal(parseGreeting(hex('05 02 00')), undefined);
  });
  test('trailing bytes are left for the next frame', () => {
    assert.equal(parseGreeting(hex('05 01 02 01 04'))?.length, 3);
  });
  test('wrong version and zero methods are errors', () => {
    assert.throws(() => parseGreeting(hex('04 01 00')), SocksParseError);
    assert.throws(() => parseGreeting(hex('05 00')), SocksParseError);
  });
  test('encodes greeting and method selection', () => {
    assert.deepEqual(encodeGreeting([2]), hex('05 01 02'));
    assert.deepEqual(encodeMethodSelection(0xff), hex('05 ff'));
  });
});

describe('username/password (RFC 1929)', () => {
  const frame = hex('01 04 75736572 06 736563726574'); // "user" / "secret"
  test('parses VER ULEN UNAME PLEN PASSWD', () => {
    assert.deepEqual(parseUserPass(frame), { value: { user: 'user', pwd: 'secret' }, length: 13 });
  });
  test('every strict prefix is incomplete', () => {
    for (let i = 0; i < frame.length; i++) assert.equal(parseUserPass(frame.subarray(0, i)), undefined);
  });
  test('round trip and status', () => {
    assert.deepEqual(encodeUserPass('user', 'secret'), frame);
    assert.deepEqual(encodeUserPassStatus(true), hex('01 00'));
    assert.deepEqual(encodeUserPassStatus(false), hex('01 01'));
  });
  test('bad version, empty name or password are errors', () => {
    assert.throws(() => parseUserPass(hex('05 01 61 01 62')), SocksParseError);
    assert.throws(() => parseUserPass(hex('01 00 01 62')), SocksParseError);
    assert.throws(() => parseUserPass(hex('01 01 61 00')), SocksParseError);
  });
});

describe('request (RFC 1928 section 4)', () => {
  test('CONNECT IPv4', () => {
    assert.deepEqual(parseRequest(hex('05 01 00 01 7f000001 0050')), {
      value: { command: 1, type: 'ipv4', host: '127.0.0.1', port: 80 },
      length: 10,
    });
  });
  test('CONNECT domain', () => {
    assert.deepEqual(parseRequest(hex('05 01 00 03 0b 6578616d706c652e636f6d 01bb')), {
      value: { command: 1, type: 'domain', host: 'example.com', port: 443 },
      length: 18,
    });
  });
  test('CONNECT IPv6, compressed output', () => {
    const r = parseRequest(hex('05 01 00 04 00000000000000000000000000000001 1f90'));
    assert.deepEqual(r?.value, { command: 1, type: 'ipv6', host: '::1', port: 8080 });
    const r2 = parseRequest(hex('05 01 00 04 20010db8000000000001000000000002 0001'));
    assert.equal(r2?.value.host, '2001:db8::1:0:0:2');
  });
  test('BIND is parsed (the session answers 0x07)', () => {
    assert.equal(parseRequest(hex('05 02 00 01 01020304 0001'))?.value.command, 2);
  });
  test('incomplete, unknown ATYP, reserved byte', () => {
    const full = hex('05 01 00 03 03 616263 0050');
    for (let i = 0; i < full.length; i++) assert.equal(parseRequest(full.subarray(0, i)), undefined);
    assert.throws(() => parseRequest(hex('05 01 00 02 00')), SocksParseError);
    assert.throws(() => parseRequest(hex('05 01 01 01 01020304 0001')), SocksParseError);
    assert.throws(() => parseRequest(hex('05 01 00 03 00 0050')), SocksParseError);
  });
  test('encode round trips for all three address types', () => {
    for (const host of ['10.1.2.3', 'example.org', '::1', '2001:db8::8:800:200c:417a', 'fe80::1']) {
      const r = parseRequest(encodeRequest(1, host, 1234));
      assert.equal(r?.value.host, host);
      assert.equal(r?.value.port, 1234);
    }
    assert.equal(parseRequest(encodeRequest(1, '::ffff:1.2.3.4', 1))?.value.host, '::ffff:102:304');
    assert.deepEqual(encodeAddress('1.2.3.4', 258), hex('01 01020304 0102'));
  });
});

describe('reply (RFC 1928 section 6)', () => {
  test('default BND is 0.0.0.0:0', () => {
    assert.deepEqual(encodeReply(0), hex('05 00 00 01 00000000 0000'));
    assert.deepEqual(encodeReply(2), hex('05 02 00 01 00000000 0000'));
  });
  test('parses a reply with an IPv6 bind address', () => {
    const r = parseReply(encodeReply(0, '::1', 99));
    assert.deepEqual(r?.value, { code: 0, bind: { type: 'ipv6', host: '::1', port: 99 } });
  });
});

describe('replyCodeForError', () => {
  const cases: [string, number][] = [
    ['ECONNREFUSED', 0x05],
    ['EHOSTUNREACH', 0x04],
    ['ENOTFOUND', 0x04],
    ['ENETUNREACH', 0x03],
    ['ETIMEDOUT', 0x06],
    ['ERR_NOT_ALLOWED', 0x02],
    ['EPIPE', 0x01],
  ];
  for (const [code, rep] of cases) {
    test(`${code} -> 0x0${rep}`, () =>
      assert.equal(replyCodeForError(Object.assign(new Error(), { code })), rep));
  }
  test('non-errors are general failure', () => assert.equal(replyCodeForError(undefined), 0x01));
});
