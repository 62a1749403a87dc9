import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generate } from 'otplib';
import {
  cleanRecoveryCode,
  cleanTotpCode,
  hashRecoveryCode,
  matchTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  totpStep,
  totpUri,
} from './totp.ts';

describe('TOTP against an outside client (otplib)', () => {
  const secret = newTotpSecret();
  const now = Date.UTC(2026, 5, 1, 12, 0, 10);
  const codeAt = (ms: number) => generate({ secret, epoch: Math.floor(ms / 1000) });

  test('a code of now, or one step either side, matches that step; two steps off does not', async () => {
    const step = totpStep(now);
    assert.equal(matchTotpStep(secret, await codeAt(now), now), step);
    assert.equal(matchTotpStep(secret, await codeAt(now - 30_000), now), step - 1);
    assert.equal(matchTotpStep(secret, await codeAt(now + 30_000), now), step + 1);
    assert.equal(matchTotpStep(secret, await codeAt(now - 60_000), now), null);
    assert.equal(matchTotpStep(secret, await codeAt(now + 60_000), now), null);
    assert.equal(matchTotpStep(newTotpSecret(), await codeAt(now), now), null, 'another secret');
  });

  test('codes as typed: spaces and dashes dropped, anything but six digits refused', async () => {
    const code = await codeAt(now);
    assert.equal(matchTotpStep(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now), totpStep(now));
    for (const bad of ['', '12345', '1234567', 'abcdef', '12345a', null, 123456]) {
      assert.equal(cleanTotpCode(bad), '', String(bad));
    }
  });

  test('the otpauth address carries the product, the account and the secret', () => {
    const uri = new URL(totpUri(secret, 'a@example.com'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'ProxyMarket');
    assert.match(decodeURIComponent(uri.pathname), /a@example\.com/);
  });
});

describe('recovery codes', () => {
  test('ten distinct codes of 60 bits, hashed by their clean form', () => {
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    const [first = ''] = codes;
    assert.equal(hashRecoveryCode(first.toLowerCase().replace(/-/g, ' ')), hashRecoveryCode(first));
    assert.notEqual(hashRecoveryCode(first), hashRecoveryCode(codes[1] ?? ''));
    assert.equal(cleanRecoveryCode('ABCD-EFGH-IJK1'), '', 'I and 1 are not in the alphabet');
    assert.equal(cleanRecoveryCode('123456'), '');
  });
});
