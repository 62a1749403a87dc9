/**
 * Schema-driven fuzz test: every operation of the OpenAPI document the app serves gets a bounded
 * number of generated requests (mostly well-formed, with hostile parts mixed in), sent with a
 * customer's and a staff token. A route added later is covered without a new case. Fails on
 * any 5xx, on an answer slower than 5 s, on an error answer that is not in the API's format,
 * and on any change to balances or the ledger by a request that answered an error.
 *
 * FUZZ_RUNS (total requests, default 4000) and FUZZ_SEED (to replay a failure) tune it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, ZErrorBody } from '@pm/contracts';
import { cents } from '@pm/money';
import fc from 'fast-check';
import { createTestApp, type TestApp } from './test/app.ts';
import { createGenerators, listOperations, type Operation } from './test/openapi-fuzz.ts';
import { describeRequest, type FuzzRequest, probeRequests, requestArb } from './test/openapi-requests.ts';
import { callRoute } from './test/route.ts';

const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const SLOW_MS = 5000;
/** A request that never answers fails the run instead of hanging it. */
const HANG_MS = 15_000;

let t: TestApp;
let ops: Operation[];
let knownIds: string[];
let principals: [string, Record<string, string>][];

const newId = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/**
 * Accounts with money (made through the API itself: PUT /accounts/my, then a staff PATCH), one
 * without, a staff account, and an agent with a lease, so routes have something to touch.
 */
async function seed(): Promise<void> {
  const [customer, other, empty, staff] = [newId('fuzz'), newId('fuzz'), newId('fuzz'), newId('staff')];
  const staffAuth = await t.staffAuth(staff);
  const seederAuth = await t.staffAuth(newId('seeder'));
  const balances: [string, Record<string, string>, number][] = [
    [customer, await t.auth(customer), 50_000],
    [other, await t.auth(other), 1234],
    [empty, await t.auth(empty), 0],
    [staff, staffAuth, 10],
  ];
  for (const [userId, auth, balanceC] of balances) {
    const put = await callRoute(t, ENDPOINTS.createMyAccount, { headers: auth });
    assert.equal(put.statusCode, 200, put.body);
    if (balanceC === 0) continue;
    const patch = await callRoute(t, ENDPOINTS.updateAccount, {
      params: { id: userId },
      // Staff cannot change their own balance: a second staff member seeds it.
      headers: userId === staff ? seederAuth : staffAuth,
      body: { balanceDeltaC: cents(balanceC), reason: 'fuzz seed' },
    });
    assert.equal(patch.statusCode, 200, patch.body);
  }
  const [node, agent, lease] = [
    newId('node'),
    newId('ag'),
    `${randomBytes(2).toString('hex')}-${1000 + Math.floor(Math.random() * 9000)}`,
  ];
  await t.db.query(
    `INSERT INTO gateway_nodes (id, public_host, public_ip, socks_base_port) VALUES ($1, 'gw.example.test', '127.0.0.1', 10000)`,
    [node],
  );
  await t.db.query(
    `INSERT INTO agents (id, key_hash, node_id, ip, cc, online) VALUES ($1, $2, $3, '192.0.2.10', 'US', true)`,
    [agent, randomBytes(32).toString('hex'), node],
  );
  await t.db.query(
    `INSERT INTO leases (id, user_id, agent_id, exc, until, socks_user, socks_pwd, node_id, purchase_price_c)
     VALUES ($1, $2, $3, true, now() + interval '1 day', $4, 'pwd', $5, 500)`,
    [lease, customer, agent, newId('socks'), node],
  );
  knownIds = [customer, other, empty, staff, lease, agent];
  principals = [
    ['customer', balances[0]![1]],
    ['staff', staffAuth],
  ];
}

before(async () => {
  t = await createTestApp('openapi_fuzz');
  await seed();
  // raw path: the OpenAPI document is served beside the contract, not as an operation of it
  const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(doc.statusCode, 200);
  ops = listOperations(doc.json());
});
after(async () => {
  await t?.close();
});

/** Balances and the ledger, compared around every request that answered an error. */
async function snapshot(): Promise<string> {
  const [balances, ledger] = await Promise.all([
    t.db.query('SELECT user_id, balance_c FROM accounts ORDER BY user_id'),
    t.db.query('SELECT id, user_id, type, memo, amt_c, bal_c, idem_key FROM txrecords ORDER BY id'),
  ]);
  return JSON.stringify([balances, ledger]);
}

async function inject(req: FuzzRequest) {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    // raw path: fuzzed requests generated from the OpenAPI document, clean and malformed
    return await Promise.race([t.app.inject(req), hang]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends one request and checks the promises every answer keeps. */
async function check(req: FuzzRequest): Promise<void> {
  const before = await snapshot();
  const started = performance.now();
  const res = await inject(req);
  const ms = performance.now() - started;
  const what = `${describeRequest(req)}\n  -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.ok(res.statusCode < 500, `server error: ${what}`);
  assert.ok(ms < SLOW_MS, `took ${Math.round(ms)} ms: ${what}`);
  if (res.statusCode < 400) return;
  let json: unknown;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  const body = ZErrorBody.safeParse(json);
  assert.ok(body.success, `error answer not in the API format: ${what}`);
  assert.equal(body.data.requestId, res.headers['x-request-id'], `request id missing: ${what}`);
  if (res.statusCode === 400) assert.ok(body.data.field, `400 without a field: ${what}`);
  assert.equal(await snapshot(), before, `an error answer changed balances or the ledger: ${what}`);
}

describe('every OpenAPI operation survives generated hostile requests', () => {
  test('the document lists the routes', () => {
    const names = ops.map((o) => `${o.method} ${o.path}`);
    for (const name of ['GET /accounts/my', 'PATCH /accounts/{id}', 'GET /txrecords']) {
      assert.ok(names.includes(name), `${name} missing from ${names.join(', ')}`);
    }
  });

  test('no 5xx, no slow answer, no change after an error', async () => {
    // An even share of the total per operation and principal, within bounds, whatever the route count.
    const runs = Math.max(
      20,
      Math.min(300, Math.floor(TOTAL_RUNS / Math.max(1, ops.length * principals.length))),
    );
    // raw path: the OpenAPI document is served beside the contract, not as an operation of it
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const gens = {
      clean: createGenerators(doc, knownIds, { dirty: false }),
      dirty: createGenerators(doc, knownIds, { dirty: true }),
    };
    for (const op of ops) {
      for (const [who, auth] of principals) {
        await fc
          .assert(fc.asyncProperty(requestArb(op, gens, knownIds, auth), check), {
            numRuns: runs,
            examples: probeRequests(op, gens, knownIds, auth).map((req) => [req]),
            ...(SEED === undefined ? {} : { seed: SEED }),
          })
          .catch((e: Error) => {
            e.message = `${op.method} ${op.path} as ${who}: ${e.message}`;
            throw e;
          });
      }
    }
  });
});
