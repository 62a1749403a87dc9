import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwtPayload, extractHandoffReturn, isTokenExpired, tokenPermissions } from './token.ts';

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (payload: unknown) => `${b64url({ alg: 'none', typ: 'at+jwt' })}.${b64url(payload)}.sig`;

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

describe('extractHandoffReturn', () => {
  it('takes the code, state and error out and keeps the rest', () => {
    const r = extractHandoffReturn('https://app.example/my?x=1&token=c0de&state=s1#top');
    assert.deepEqual(r, { code: 'c0de', state: 's1', error: null, start: false, cleanUrl: '/my?x=1#top' });
  });

  it('reads a start request and an error answer', () => {
    assert.equal(extractHandoffReturn('https://app.example/?handoff=1').start, true);
    const e = extractHandoffReturn('https://app.example/ports?handoff_error=login_required&state=s');
    assert.equal(e.error, 'login_required');
    assert.equal(e.cleanUrl, '/ports');
  });

  it('leaves an address without any of them alone', () => {
    const r = extractHandoffReturn('https://app.example/shop?x=1');
    assert.equal(r.cleanUrl, 'https://app.example/shop?x=1');
    assert.equal(r.code, null);
  });

  it("leaves the sign-in callback's own state alone", () => {
    const href = 'https://app.example/callback?code=abc&state=xyz';
    assert.equal(extractHandoffReturn(href).cleanUrl, href);
  });
});
