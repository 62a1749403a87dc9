import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TEnvironment } from '@pm/contracts';
import { loadEnvironment, selectEnvironment } from './environment.ts';

const env = (name: string, origins: string[]): TEnvironment => ({
  name,
  origins,
  apiUrl: `https://api.${name}.example`,
  portsApiUrl: `https://ports.${name}.example`,
  issuer: `https://auth.${name}.example`,
  clientId: 'web',
  audience: 'https://api.example',
  siteUrl: `https://${name}.example/`,
  support: { email: 'support@example.com', messenger: '@support', messengerUrl: 'https://t.me/support' },
  termsVersion: 2,
});

const file = {
  environments: [
    env('production', ['https://app.example.com']),
    env('staging', ['https://staging.example.com', 'http://localhost:5173']),
  ],
};

describe('selectEnvironment', () => {
  it('picks the entry whose origins include the page origin', () => {
    const r = selectEnvironment(file, 'http://localhost:5173');
    assert.equal(r.ok, true);
    assert.equal(r.ok && r.environment.name, 'staging');
  });

  it('ignores case and a trailing slash in configured origins', () => {
    const r = selectEnvironment(
      { environments: [env('x', ['HTTPS://App.Example.com/'])] },
      'https://app.example.com',
    );
    assert.equal(r.ok && r.environment.name, 'x');
  });

  it('is a configuration error for an unknown origin', () => {
    assert.equal(selectEnvironment(file, 'http://127.0.0.2:5173').ok, false);
    assert.equal(selectEnvironment(file, 'http://localhost:5174').ok, false);
  });

  it('is a configuration error for a malformed file', () => {
    assert.equal(selectEnvironment({ environments: [{ name: 'x' }] }, 'https://app.example.com').ok, false);
    assert.equal(selectEnvironment(null, 'https://app.example.com').ok, false);
  });
});

describe('loadEnvironment', () => {
  it('fetches /environments.json from the given origin', async () => {
    let asked = '';
    const fakeFetch = (async (url: URL) => {
      asked = String(url);
      return new Response(JSON.stringify(file), { status: 200 });
    }) as unknown as typeof fetch;
    const r = await loadEnvironment('https://app.example.com', fakeFetch);
    assert.equal(asked, 'https://app.example.com/environments.json');
    assert.equal(r.ok && r.environment.name, 'production');
  });

  it('is a configuration error when the fetch fails or answers an error', async () => {
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    assert.equal((await loadEnvironment('https://app.example.com', failing)).ok, false);
    const notFound = (async () => new Response('nope', { status: 404 })) as unknown as typeof fetch;
    assert.equal((await loadEnvironment('https://app.example.com', notFound)).ok, false);
  });
});
