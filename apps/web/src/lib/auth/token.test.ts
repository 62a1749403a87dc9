import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwtPayload, extractHandoffToken, isTokenExpired, tokenPermissions } from './token.ts';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (payload: unknown) => `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url(payload)}.sig`;

describe('extractHandoffToken', () => {
  it('takes the token out of the address and keeps the rest', () => {
    const r = extractHandoffToken('https://app.example/my?x=1&token=abc.def.ghi#top');
    assert.equal(r.token, 'abc.def.ghi');
    assert.equal(r.cleanUrl, '/my?x=1#top');
  });

  it('leaves an address without a token alone', () => {
    const r = extractHandoffToken('https://app.example/shop?x=1');
    assert.equal(r.token, null);
    assert.equal(r.cleanUrl, 'https://app.example/shop?x=1');
  });

  it('drops an empty token parameter', () => {
    const r = extractHandoffToken('https://app.example/?token=');
    assert.equal(r.token, null);
    assert.equal(r.cleanUrl, '/');
  });
});

describe('token claims', () => {
  it('decodes the payload and the permissions claim', () => {
    const t = jwt({ sub: 'u1', permissions: ['read:users', 'update:accounts', 7] });
    assert.equal(decodeJwtPayload(t)?.sub, 'u1');
    assert.deepEqual(tokenPermissions(t), ['read:users', 'update:accounts']);
  });

  it('handles non-JWTs and missing claims', () => {
    assert.equal(decodeJwtPayload('opaque'), null);
    assert.equal(decodeJwtPayload('a.!!!.c'), null);
    assert.deepEqual(tokenPermissions(null), []);
    assert.deepEqual(tokenPermissions(jwt({ sub: 'x' })), []);
  });

  it('decodes non-ASCII claims', () => {
    assert.equal(decodeJwtPayload(jwt({ name: 'Zoë' }))?.name, 'Zoë');
  });

  it('tells whether a token has expired', () => {
    const now = Date.UTC(2026, 0, 1);
    assert.equal(isTokenExpired(jwt({ exp: now / 1000 - 120 }), now), true);
    assert.equal(isTokenExpired(jwt({ exp: now / 1000 + 120 }), now), false);
    assert.equal(isTokenExpired(jwt({}), now), false);
  });
});
