/**
 * The OpenAPI documents hold up outside (issue 35): the market API's `/openapi.json`, the public
 * `/api/openapi.json` and the Ports API's `/openapi.json` validate with a validator we did not
 * write (@apidevtools/swagger-parser, OpenAPI 3.0.3); every operation has a unique operationId, a
 * summary and its error answers, each described and in an error body. A client generated from the
 * public and Ports documents by openapi-typescript typechecks an integrator's script (tsc), which
 * then reads a lease's concrete ports from the running API.
 *
 * Why it can fail: the validator is also shown a copy of the public document with the JSON Schema
 * 2020-12 keywords `/token` once had (`$schema`, `const`) and must refuse it, and tsc is also given
 * the script with a misspelt field and must refuse that.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ENDPOINTS, type Endpoint, TOKEN_ENDPOINT } from '@pm/contracts';
import { buildAgent, buildNode } from '@pm/db/testing';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTestApp, type TestApp } from './test/app.ts';
import { buildCustomer, postLease, setFlatPrices } from './test/market.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../../..');

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: Json }> }>;
}

let t: TestApp;
let dir: string;
const docs: Record<'market' | 'public' | 'ports', Json> = { market: {}, public: {}, ports: {} };

before(async () => {
  t = await createTestApp('openapi_documents', { payments: false, ports: true });
  const get = async (app: TestApp['app'], url: string) => {
    // raw path: the OpenAPI documents are served beside the contract, not as operations of it
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json() as Json;
  };
  docs.market = await get(t.app, '/openapi.json');
  docs.public = await get(t.app, '/api/openapi.json');
  docs.ports = await get(t.portsApp!, '/openapi.json');
  await mkdir(join(ROOT, 'test-results'), { recursive: true });
  dir = await mkdtemp(join(ROOT, 'test-results', 'openapi-documents-'));
});
after(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The validator's verdict: null when valid, else its message. It dereferences in place: give it a copy. */
async function validationError(doc: Json): Promise<string | null> {
  try {
    await SwaggerParser.validate(structuredClone(doc) as never);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** `METHOD path` and the operation, for each operation of a document. */
function operationsOf(doc: Json): [string, Operation][] {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op as Operation]),
  );
}

for (const name of ['market', 'public', 'ports'] as const) {
  test(`the ${name} document is valid OpenAPI 3.0.3`, async () => {
    assert.equal(docs[name].openapi, '3.0.3');
    assert.equal(await validationError(docs[name]), null);
  });

  test(`every operation of the ${name} document has an operationId, a summary and its error answers`, () => {
    const ops = operationsOf(docs[name]);
    assert.ok(ops.length >= 5, 'the document lists its operations');
    const ids = ops.map(([, op]) => op.operationId);
    assert.deepEqual(
      ops.filter(([, op]) => !op.operationId || !op.summary).map(([k]) => k),
      [],
      'operations without an operationId or a summary',
    );
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const [key, op] of ops) {
      const statuses = Object.keys(op.responses);
      // Signed-in operations: refused input, no token, not allowed, the token check unavailable.
      const signedIn = !(Array.isArray(op.security) && op.security.length === 0);
      const required = signedIn ? ['400', '401', '403', '503'] : [];
      for (const status of required) assert.ok(statuses.includes(status), `${key} answers ${status}`);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const answer = op.responses[status]!;
        assert.ok(
          answer.description && answer.description !== 'Default Response',
          `${key} ${status} described`,
        );
        const schema = answer.content?.['application/json']?.schema;
        assert.ok(
          (schema?.required as string[] | undefined)?.includes('error'),
          `${key} ${status} error body`,
        );
      }
    }
  });
}

for (const name of ['market', 'public', 'ports'] as const) {
  test(`each error answer of the ${name} document lists exactly its operation's error codes`, () => {
    const byId = new Map((Object.values(ENDPOINTS) as Endpoint[]).map((e) => [e.operationId, e]));
    let listed = 0;
    let checked = 0;
    for (const [key, op] of operationsOf(docs[name])) {
      if (op.operationId === TOKEN_ENDPOINT.operationId) continue;
      const id = op.operationId ?? '';
      // The market document names a public operation's `/api` twin `api<Id>`; its probes and
      // documents (`/healthz`, `/openapi.json`) are not operations of the contract.
      const e = byId.get(id) ?? byId.get(id.replace(/^api(.)/, (_, c: string) => c.toLowerCase()));
      if (!e) continue;
      checked++;
      const declared = [...new Set(e.errorCodes ?? [])].sort();
      for (const [status, answer] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        const errorCode = (answer.content?.['application/json']?.schema?.properties as Json | undefined)
          ?.errorCode as { enum?: string[] } | undefined;
        assert.deepEqual([...(errorCode?.enum ?? [])].sort(), declared, `${key} ${status}`);
        if (declared.length === 0) assert.equal(errorCode, undefined, `${key} ${status} names no code`);
        listed += errorCode?.enum?.length ?? 0;
      }
    }
    assert.ok(checked >= 5 && listed > 0, `${checked} operations checked, ${listed} codes listed`);
  });
}

test('the public document is the public operations and the token request, under their own ids', () => {
  const ops = operationsOf(docs.public).map(([k, op]) => `${k} ${op.operationId}`);
  assert.deepEqual(ops.sort(), [
    'DELETE /api/leases/{id} refundLease',
    'GET /api/agents listAgents',
    'GET /api/leases listLeases',
    'GET /api/leases/{id}/autoRenew setAutoRenew',
    'POST /api/leases createLease',
    'POST /token getToken',
  ]);
});

test('the validator refuses what the token request once had: JSON Schema 2020-12 keywords', async () => {
  const broken = structuredClone(docs.public) as { paths: Record<string, { post?: Json }> };
  const form = (broken.paths['/token']?.post?.requestBody as Json | undefined)?.content as
    | Record<string, { schema: Json }>
    | undefined;
  assert.ok(form?.['application/x-www-form-urlencoded'], 'the token request is in the document');
  form['application/x-www-form-urlencoded'].schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { grant_type: { type: 'string', const: 'password' } },
  };
  assert.match((await validationError(broken as Json)) ?? 'accepted', /token/);
});

/** The integrator's script, as written against the generated types (openapi-fetch does the calls). */
const SCRIPT = `import createClient from 'openapi-fetch';
import type { paths } from './public-api.ts';
import type { paths as PortsPaths } from './ports-api.ts';

/** Every proxy address of a customer's leases and port packages, as a tool would be configured. */
export async function proxyAddresses(o: { apiUrl: string; portsUrl: string; token: string; userId: string }) {
  const headers = { authorization: 'Bearer ' + o.token };
  const out: string[] = [];
  const api = createClient<paths>({ baseUrl: o.apiUrl, headers });
  const leases = await api.GET('/api/leases', { params: { query: { cursor: 0 } } });
  if (!leases.data) throw new Error('leases: ' + JSON.stringify(leases.error));
  for (const lease of leases.data.leases) {
    const { host, ports, httpPort, user, pwd } = lease.socks;
    for (const port of ports) out.push('socks5h://' + user + ':' + pwd + '@' + host + ':' + port);
    out.push('http://' + user + ':' + pwd + '@' + host + ':' + httpPort);
  }
  const ports = createClient<PortsPaths>({ baseUrl: o.portsUrl, headers });
  const packages = await ports.GET('/users/{id}/packages', { params: { path: { id: o.userId } } });
  if (!packages.data) throw new Error('packages: ' + JSON.stringify(packages.error));
  for (const p of packages.data.packages) {
    for (const port of p.access.ports) out.push(p.access.port_service_host + ':' + port);
  }
  return out;
}
`;

/** Runs tsc (the repository's) on `file` in the temp dir; the compiler's output, empty when it passes. */
async function typecheck(file: string): Promise<string> {
  const config = join(dir, `tsconfig.${file}.json`);
  await writeFile(
    config,
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
      files: [file],
    }),
  );
  return run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', config], { cwd: ROOT }).then(
    () => '',
    (e: { stdout?: string; message: string }) => e.stdout || e.message,
  );
}

test('a client generated from the documents typechecks an integrator script that reads the ports', {
  timeout: 60_000,
}, async () => {
  const generate = async (doc: Json) =>
    astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
  await writeFile(join(dir, 'public-api.ts'), await generate(docs.public));
  await writeFile(join(dir, 'ports-api.ts'), await generate(docs.ports));
  await writeFile(join(dir, 'integrator.ts'), SCRIPT);
  await writeFile(join(dir, 'misspelt.ts'), SCRIPT.replace('httpPort, user', 'httpPorts, user'));
  assert.equal(await typecheck('integrator.ts'), '', 'the script typechecks against the generated types');
  assert.match(await typecheck('misspelt.ts'), /httpPorts/, 'a field the document lacks is refused');

  // The script as written, against the running API: a lease on a node whose base port is 30000.
  await setFlatPrices(t, 500, 200);
  const who = await buildCustomer(t, 10_000, 'integrator');
  const node = await buildNode(t.db, {
    publicHost: 'gw9.example.test',
    socksBasePort: 30_000,
    sparePorts: 0,
  });
  const agent = await buildAgent(t.db, { nodeId: node.id, online: true });
  const sale = await postLease(t, who, { agentID: agent.id, expPriceC: 500, probe: false, exc: true });
  assert.equal(sale.statusCode, 201, sale.body);
  const urlOf = async (app: TestApp['app']) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  };
  const script = (await import(join(dir, 'integrator.ts'))) as {
    proxyAddresses(o: { apiUrl: string; portsUrl: string; token: string; userId: string }): Promise<string[]>;
  };
  const addresses = await script.proxyAddresses({
    apiUrl: await urlOf(t.app),
    portsUrl: await urlOf(t.portsApp!),
    token: who.headers.authorization!.slice('Bearer '.length),
    userId: who.userId,
  });
  const ports = addresses.map((a) => new URL(a).port);
  assert.deepEqual(ports, ['32080', '33080', '34080', '35080', '36080']);
});
