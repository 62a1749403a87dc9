import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApiClient } from '../../lib/api/transport.ts';
import { ADMIN_GLOBAL_ERROR, AdminError, createAdminClient, serverText } from './adminClient.ts';

interface Seen {
  method: string;
  url: URL;
  body: unknown;
}

/** An admin client over fake hosts: `answer` decides each response; every request is recorded. */
function fakeClient(answer: (req: Seen) => { status: number; body?: unknown }) {
  const seen: Seen[] = [];
  const failures: string[] = [];
  const fetchFn = (async (input: URL | RequestInfo, init?: RequestInit) => {
    const req = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    };
    seen.push(req);
    const { status, body } = answer(req);
    return new Response(body === undefined ? '' : JSON.stringify(body), { status });
  }) as typeof fetch;
  const host = (baseUrl: string) =>
    createApiClient({
      baseUrl,
      getAccessToken: () => 'token',
      onFailure: (action) => failures.push(action),
      fetchFn,
    });
  const client = createAdminClient({
    api: host('http://api.test'),
    identity: host('http://id.test'),
    ports: host('http://ports.test'),
  });
  return { client, seen, failures };
}

describe('the admin client (one client, one error model)', () => {
  test('block and unblock send blocked explicitly to the identity host', async () => {
    const { client, seen } = fakeClient((r) => ({
      status: 200,
      body: { blocked: (r.body as { blocked: boolean }).blocked, email: 'a@b.c' },
    }));
    assert.deepEqual(await client.setBlocked('a@b.c', true, 'fraud'), { blocked: true, email: 'a@b.c' });
    await client.setBlocked('a@b.c', false);
    assert.equal(seen[0]?.url.href, 'http://id.test/administator/user/block/');
    assert.deepEqual(seen[0]?.body, { email: 'a@b.c', blocked: true, reason: 'fraud' });
    assert.deepEqual(seen[1]?.body, { email: 'a@b.c', blocked: false });
  });

  test('payments load with offset 0, limit 1000 and YYYY-MM-DD dates', async () => {
    const { client, seen } = fakeClient(() => ({ status: 200, body: { txRecords: [], total: 0 } }));
    await client.payments('u1', '2026-01-01', '2026-02-01');
    const q = Object.fromEntries(seen[0]?.url.searchParams ?? []);
    assert.deepEqual(q, { uid: 'u1', offset: '0', limit: '1000', start: '2026-01-01', end: '2026-02-01' });
  });

  test('a lease 404 gives null; other failures are AdminErrors and never the global error screen', async () => {
    const { client, failures } = fakeClient((r) =>
      r.url.pathname.startsWith('/leases/')
        ? { status: 404, body: { error: 'NOT_FOUND', message: 'Lease not found' } }
        : r.url.hostname === 'id.test'
          ? { status: 400, body: { error: 'VALIDATION_FAILED', message: 'No user with that e-mail' } }
          : { status: 409, body: { error: 'CONFLICT', message: 'Balance cannot go below zero' } },
    );
    assert.equal(await client.lease('abcd-1234'), null);
    await assert.rejects(client.userInfo('x@y.z'), (e: unknown) => {
      assert.ok(e instanceof AdminError);
      assert.equal(e.message, 'No user with that e-mail');
      return true;
    });
    await assert.rejects(client.changeBalance('u1', -5, 'x'), (e: unknown) => {
      assert.ok(e instanceof AdminError);
      assert.equal(e.message, `${ADMIN_GLOBAL_ERROR} (409: Balance cannot go below zero)`);
      return true;
    });
    assert.deepEqual(failures, []);
  });

  test("the text shown is the error body's message, never its code", () => {
    assert.equal(serverText({ error: 'VALIDATION_FAILED', message: 'User not found' }), 'User not found');
    assert.equal(serverText({ error: 'VALIDATION_FAILED' }), undefined);
    assert.equal(serverText(' plain text '), 'plain text');
  });

  test('a 401 still signs in again', async () => {
    const { client, failures } = fakeClient(() => ({ status: 401 }));
    await assert.rejects(client.account('u1'), AdminError);
    assert.deepEqual(failures, ['sign-in']);
  });
});
