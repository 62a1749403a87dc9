/**
 * A client generated from the published `/api/openapi.json` by generators we did not write
 * (openapi-typescript for the types, openapi-fetch for the calls) buys and refunds a lease on the
 * whole product (identity host, market API, gateway and real agents), unedited: the generated types
 * must typecheck the client's code (tsc) and the calls must work.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startStack, type TestStack } from '@pm/devnet/stack';
import { waitFor } from '@pm/testkit';
import openapiTS, { astToString } from 'openapi-typescript';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../../../..');

/** The customer's script, as a developer would write it against the generated types. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

export async function token(issuerBase: string, form: { client_id: string; username: string; password: string }) {
  const auth = createClient<paths>({ baseUrl: issuerBase });
  const { data, error } = await auth.POST('/token', {
    body: { grant_type: 'password', ...form },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (!data) throw new Error('token: ' + JSON.stringify(error));
  return data.access_token;
}

export async function buy(apiUrl: string, accessToken: string) {
  const api = createClient<paths>({ baseUrl: apiUrl, headers: { authorization: 'Bearer ' + accessToken } });
  const shop = await api.GET('/api/agents', { params: { query: { cc: 'US', limit: 100 } } });
  if (!shop.data) throw new Error('agents: ' + JSON.stringify(shop.error));
  const agent = shop.data.agents.find((a) => a.priceExcC > 0 && a.leases.count === 0);
  if (!agent) throw new Error('no free agent');
  const bought = await api.POST('/api/leases', {
    body: { agentID: agent.id, expPriceC: agent.priceExcC, probe: true, exc: true },
  });
  if (!bought.data) throw new Error('buy: ' + JSON.stringify(bought.error));
  const renew = await api.GET('/api/leases/{id}/autoRenew', {
    params: { path: { id: bought.data.id }, query: { set: 'true' } },
  });
  if (!renew.data?.autoRenew) throw new Error('autoRenew: ' + JSON.stringify(renew.error));
  const mine = await api.GET('/api/leases', { params: { query: { cursor: 0 } } });
  if (!mine.data?.leases.some((l) => l.id === bought.data.id)) throw new Error('not listed');
  return { leaseId: bought.data.id, agentId: agent.id, priceC: bought.data.purchasePriceC };
}

export async function refund(apiUrl: string, accessToken: string, id: string) {
  const api = createClient<paths>({ baseUrl: apiUrl, headers: { authorization: 'Bearer ' + accessToken } });
  const res = await api.DELETE('/api/leases/{id}', { params: { path: { id } } });
  return { status: res.response.status, refundAmountC: res.data?.refundAmountC, errorCode: res.error?.errorCode };
}
`;

interface GeneratedClient {
  token(issuerBase: string, form: { client_id: string; username: string; password: string }): Promise<string>;
  buy(apiUrl: string, token: string): Promise<{ leaseId: string; agentId: string; priceC: number }>;
  refund(
    apiUrl: string,
    token: string,
    id: string,
  ): Promise<{ status: number; refundAmountC?: number; errorCode?: string }>;
}

let stack: TestStack;
let dir: string;

before(
  async () => {
    stack = await startStack({ label: 'public_api_client', network: { agentCount: 4 } });
    await mkdir(join(ROOT, 'test-results'), { recursive: true });
    dir = await mkdtemp(join(ROOT, 'test-results', 'public-api-client-'));
  },
  { timeout: 120_000 },
);
after(
  async () => {
    await stack?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

test('a client generated from /api/openapi.json buys and refunds a lease unedited', {
  timeout: 120_000,
}, async () => {
  // raw path: the OpenAPI document is served beside the contract, not as an operation of it
  const res = await fetch(`${stack.apiUrl}/api/openapi.json`);
  assert.equal(res.status, 200);
  const types = astToString(await openapiTS((await res.json()) as Parameters<typeof openapiTS>[0]));
  await writeFile(join(dir, 'schema.ts'), types);
  await writeFile(join(dir, 'client.ts'), CLIENT);
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        lib: ['es2023', 'dom'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['client.ts'],
    }),
  );
  // The generated types must accept the script as written (a wrong path or field fails here).
  await run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], { cwd: ROOT }).catch(
    (e: { stdout?: string }) => assert.fail(`generated client does not typecheck:\n${e.stdout}`),
  );

  const client = (await import(join(dir, 'client.ts'))) as GeneratedClient;
  const { customer } = stack.demo;
  const accessToken = await client.token(stack.issuer, {
    client_id: stack.apiClient.clientId,
    username: customer.email,
    password: customer.password,
  });
  const lease = await client.buy(stack.apiUrl, accessToken);
  assert.ok(lease.priceC > 0);

  // The proxy answers: not refundable.
  const early = await client.refund(stack.apiUrl, accessToken, lease.leaseId);
  assert.equal(early.status, 409);
  assert.equal(early.errorCode, 'agentNotDead');

  // Switched off, it is refunded in full (presence notices within seconds).
  await stack.network!.stopAgent(lease.agentId);
  const outcome = await waitFor(
    async () => {
      const o = await client.refund(stack.apiUrl, accessToken, lease.leaseId);
      return o.status === 200 && o;
    },
    { timeoutMs: 25_000, intervalMs: 1000, what: 'the refund of a switched-off proxy' },
  );
  assert.equal(outcome.status, 200, JSON.stringify(outcome));
  assert.equal(outcome.refundAmountC, lease.priceC);
});
