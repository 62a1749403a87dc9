import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptedTermsCookie, needsTermsAcceptance, readAcceptedTermsVersion } from './termsVersion.ts';

describe('terms version', () => {
  it('reads the accepted version from the cookie string', () => {
    assert.equal(readAcceptedTermsVersion('a=1; acceptedTermsVersion=3; b=2'), 3);
    assert.equal(readAcceptedTermsVersion('acceptedTermsVersion=12'), 12);
    assert.equal(readAcceptedTermsVersion(''), null);
    assert.equal(readAcceptedTermsVersion('xacceptedTermsVersion=3'), null);
    assert.equal(readAcceptedTermsVersion('acceptedTermsVersion=abc'), null);
  });

  it('asks for acceptance when nothing or an older version was accepted', () => {
    assert.equal(needsTermsAcceptance(null, 1), true);
    assert.equal(needsTermsAcceptance(2, 3), true);
    assert.equal(needsTermsAcceptance(3, 3), false);
    assert.equal(needsTermsAcceptance(4, 3), false);
  });

  it('writes a cookie that reads back', () => {
    const cookie = acceptedTermsCookie(5, true);
    assert.match(cookie, /; Secure$/);
    assert.equal(readAcceptedTermsVersion(cookie.split(';')[0]!), 5);
    assert.doesNotMatch(acceptedTermsCookie(5, false), /Secure/);
  });
});
