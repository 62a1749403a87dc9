import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickSignIn } from './environment-file.ts';

const entry = {
  name: 'local',
  origins: ['https://App.example.com/'],
  issuer: 'https://id.example.com',
  clientId: 'web',
  audience: 'https://api.example.com',
  siteUrl: 'https://example.com/',
};

describe('pickSignIn (the boot, before zod is loaded)', () => {
  it("takes this origin's sign-in settings, origins compared as the app does", () => {
    const r = pickSignIn(
      { environments: [{ ...entry, origins: ['https://other.example'] }, entry] },
      'https://app.example.com',
    );
    assert.deepEqual(r.ok && r.signIn, {
      issuer: entry.issuer,
      clientId: 'web',
      audience: entry.audience,
      siteUrl: entry.siteUrl,
    });
  });

  it('refuses an unknown origin, a file that is not one, and a missing or empty sign-in field', () => {
    assert.equal(pickSignIn({ environments: [entry] }, 'https://evil.example').ok, false);
    for (const file of [null, 'x', {}, { environments: {} }, { environments: [null, 3] }]) {
      assert.equal(pickSignIn(file, 'https://app.example.com').ok, false, JSON.stringify(file));
    }
    for (const field of ['issuer', 'clientId', 'audience', 'siteUrl']) {
      for (const value of [undefined, '', 42]) {
        const file = { environments: [{ ...entry, [field]: value }] };
        assert.equal(pickSignIn(file, 'https://app.example.com').ok, false, `${field}=${String(value)}`);
      }
    }
  });
});
