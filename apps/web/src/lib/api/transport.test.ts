import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, classifyFailure, createApiClient, type FailureAction } from './transport.ts';

describe('classifyFailure', () => {
  it('maps statuses to the actions of rules §8', () => {
    assert.equal(classifyFailure(401), 'sign-in');
    assert.equal(classifyFailure(502), 'maintenance');
    assert.equal(classifyFailure(null), 'offline');
    assert.equal(classifyFailure(500), 'global-error');
    assert.equal(classifyFailure(404), 'global-error');
    assert.equal(classifyFailure(400), 'global-error');
  });

  it('honours the ignore list and ignoreOffline', () => {
    assert.equal(classifyFailure(404, { ignoreStatuses: [404] }), 'none');
    assert.equal(classifyFailure(409, { ignoreStatuses: [404] }), 'global-error');
    assert.equal(classifyFailure(null, { ignoreOffline: true }), 'none');
  });

  it('never lets the ignore list swallow 401 or 502', () => {
    assert.equal(classifyFailure(401, { ignoreStatuses: [401] }), 'sign-in');
    assert.equal(classifyFailure(502, { ignoreStatuses: [502] }), 'maintenance');
  });
});

type Call = { url: string; init: RequestInit };

function setup(respond: (call: Call) => Promise<Response>, timeoutMs?: number) {
  const calls: Call[] = [];
  const failures: FailureAction[] = [];
  const client = createApiClient({
    baseUrl: 'https://api.example/',
    getAccessToken: () => 'tok123',
    onFailure: (a) => failures.push(a),
    fetchFn: (async (url: URL, init: RequestInit) => {
      const call = { url: String(url), init };
      calls.push(call);
      return respond(call);
    }) as unknown as typeof fetch,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  return { client, calls, failures };
}

describe('createApiClient', () => {
  it('sends the bearer token, the query and a JSON body, and parses the answer', async () => {
    const { client, calls } = setup(async () => Response.json({ ok: 1 }));
    const out = await client.post<{ ok: number }>('/leases', {
      body: { agentID: 'a' },
      query: { x: 1, y: undefined },
    });
    assert.deepEqual(out, { ok: 1 });
    const call = calls[0]!;
    assert.equal(call.url, 'https://api.example/leases?x=1');
    assert.equal(call.init.method, 'POST');
    const headers = call.init.headers as Record<string, string>;
    assert.equal(headers.authorization, 'Bearer tok123');
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(call.init.body, '{"agentID":"a"}');
  });

  it('sends no body and no content type when none is given (PUT /accounts/my)', async () => {
    const { client, calls } = setup(async () => new Response(null, { status: 204 }));
    assert.equal(await client.put('/accounts/my'), undefined);
    assert.equal(calls[0]!.init.body, undefined);
    assert.equal((calls[0]!.init.headers as Record<string, string>)['content-type'], undefined);
  });

  it('reports 401, 502 and 500 and throws an ApiError with the status and body', async () => {
    for (const [status, action] of [
      [401, 'sign-in'],
      [502, 'maintenance'],
      [500, 'global-error'],
    ] as const) {
      const { client, failures } = setup(async () => Response.json({ error: 'x' }, { status }));
      const err = await client.get('/accounts/my').catch((e: unknown) => e);
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, status);
      assert.deepEqual(err.body, { error: 'x' });
      assert.deepEqual(failures, [action]);
    }
  });

  it('does not report an ignored status but still throws', async () => {
    const { client, failures } = setup(async () => Response.json({ error: 'NOT_FOUND' }, { status: 404 }));
    const err = await client.get('/accounts/my', { ignoreStatuses: [404] }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && err.status === 404 && err.action === 'none');
    assert.deepEqual(failures, []);
  });

  it('maps a network error to offline unless ignored', async () => {
    const down = async (): Promise<Response> => {
      throw new TypeError('fetch failed');
    };
    const a = setup(down);
    const err = await a.client.get('/x').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && err.status === null);
    assert.deepEqual(a.failures, ['offline']);
    const b = setup(down);
    await assert.rejects(b.client.get('/x', { ignoreOffline: true }), ApiError);
    assert.deepEqual(b.failures, []);
  });

  it('aborts a call that takes longer than the timeout and treats it as offline', async () => {
    const hang = (call: Call) =>
      new Promise<Response>((_, reject) => {
        const timer = setTimeout(() => reject(new Error('fake fetch was not aborted')), 5000);
        call.init.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(call.init.signal?.reason);
        });
      });
    const { client, failures } = setup(hang, 50);
    const started = Date.now();
    const err = await client.get('/slow').catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && err.status === null);
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(failures, ['offline']);
  });

  it('reports successful answers (ends a run of sign-in attempts)', async () => {
    let successes = 0;
    let status = 200;
    const client = createApiClient({
      baseUrl: 'https://api.example',
      getAccessToken: () => null,
      onFailure: () => {},
      onSuccess: () => successes++,
      fetchFn: (async () => Response.json({}, { status })) as unknown as typeof fetch,
    });
    await client.get('/a');
    status = 401;
    await client.get('/a').catch(() => {});
    assert.equal(successes, 1);
  });

  it('validates the answer with a schema when given', async () => {
    const { client } = setup(async () => Response.json({ n: 'x' }));
    const schema = {
      parse: (d: unknown) => {
        const n = (d as { n: unknown }).n;
        if (typeof n !== 'number') throw new Error('n must be a number');
        return n;
      },
    };
    await assert.rejects(client.get('/n', { schema }), /n must be a number/);
  });
});
