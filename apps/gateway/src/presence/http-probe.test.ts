import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEchoBody } from './http-probe.ts';

test('an IP-echo body names an address as plain text or as JSON { ip }', () => {
  assert.equal(parseEchoBody('203.0.113.7\n'), '203.0.113.7');
  assert.equal(parseEchoBody('  2001:db8::1 '), '2001:db8::1');
  assert.equal(parseEchoBody('{"ip":"198.51.100.9","country":"FR"}'), '198.51.100.9');
});

test('anything else names no address', () => {
  for (const body of ['', 'ok', '<html>203.0.113.7</html>', '{"ip":5}', '{broken', '999.1.1.1']) {
    assert.equal(parseEchoBody(body), undefined, body);
  }
});
