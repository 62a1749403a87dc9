/**
 * The endpoint contract is the whole API (issue 27): every route the market API and the Ports API's
 * listener serve is an operation declared in `ENDPOINTS` (`@pm/contracts`), and every declared
 * operation is served, on the listener it names (`api`), at its method and path (and, for a public
 * one, at `publicRoute(e)` under `/api`). The only other routes are the named non-operations below.
 *
 * Why a stray route fails this test: the apps are built as `start()` builds them (one composition,
 * `buildApp` once per surface) with an `onRoute` observer added before anything registers, so it
 * sees every route: the modules', the plugins' and the platform's. A new
 * `app.get('/x', …)` in a module therefore shows up as `market GET /x`; it is not in `ENDPOINTS`
 * and not in `NON_OPERATIONS`, so the first test lists it as undeclared and fails. Declaring it in
 * `ENDPOINTS` without registering it fails the second test; registering it by hand under a declared
 * path instead of through `registerEndpoint` fails the third (its schema lacks the declaration's summary).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ENDPOINTS, type Endpoint, publicRoute } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../app.ts';
import { type Composition, compose } from '../compose.ts';
import { withSettingDefaults } from './config.ts';
import { createLogger } from './logger.ts';
import type { ApiSurface } from './module.ts';

/** Routes that are not operations of the API, each with why it stays outside the contract. */
const NON_OPERATIONS: Record<string, string> = {
  'market GET /healthz': 'liveness probe for the orchestrator, not a customer operation',
  'market GET /readyz': 'readiness probe (database reachable) for the orchestrator',
  'market GET /metrics': "Prometheus scrape behind the operator's METRICS_TOKEN, not an API caller's token",
  'market GET /openapi.json': "the market API's own OpenAPI document, generated from the routes",
  'market GET /api/openapi.json': 'the public OpenAPI document, itself generated from ENDPOINTS',
  'ports GET /openapi.json': "the Ports API's own OpenAPI document, generated from its routes",
  'market OPTIONS *': "@fastify/cors's CORS preflight answer for every path",
  'ports OPTIONS *': "@fastify/cors's CORS preflight answer for every path",
};
// Also outside: each GET's HEAD twin, which Fastify adds itself (exposeHeadRoutes) with the GET's
// handler. The web build's static files and `/environments.json` are served by the separate web
// listener (`buildWebApp`), not by these two apps.

/** One route on one listener: `market GET /leases/:id`. */
const key = (surface: ApiSurface, method: string, url: string) => `${surface} ${method} ${url}`;
/** `/leases/{id}` -> `/leases/:id`, as `registerEndpoint` declares it. */
const fastifyPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

interface Seen {
  summary: string | undefined;
}

const ISSUER = 'http://127.0.0.1:9/';
let db: TestDatabase;
let composition: Composition;
const apps: FastifyInstance[] = [];
/** Every route of both apps, by key, as the `onRoute` hook saw it. */
const routes = new Map<string, Seen>();

async function build(surface: ApiSurface): Promise<void> {
  const app = await buildApp({
    db,
    // Never contacted: the token verifier fetches its keys on the first request, and none is made.
    oidc: {
      issuer: ISSUER,
      audience: 'https://api.market.test',
      algorithms: ['ES256'],
      permissionsClaim: 'permissions',
    },
    composition,
    surface,
    onRoute: (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        const summary = (route.schema as { summary?: string } | undefined)?.summary;
        routes.set(key(surface, method, route.url), { summary });
      }
    },
  });
  apps.push(app);
  await app.ready();
}

before(async () => {
  db = await createTestDatabase('endpoint_contract');
  composition = compose({
    db,
    log: createLogger({ level: 'silent' }),
    settings: withSettingDefaults(undefined, ISSUER),
  });
  await build('market');
  await build('ports');
});
after(async () => {
  for (const app of apps) await app.close();
  await composition?.close();
  await db?.drop();
});

/** Where each operation of `ENDPOINTS` must be served, with the summary its declaration gives the route. */
function declaredRoutes(): Map<string, Endpoint> {
  const declared = new Map<string, Endpoint>();
  for (const e of Object.values(ENDPOINTS) as Endpoint[]) {
    // The identity host serves its own (apps/identity/src/endpoint-contract.int.test.ts checks them).
    if (e.api === 'identity') continue;
    const surface = e.api ?? 'market';
    declared.set(key(surface, e.method, fastifyPath(e.path)), e);
    if (e.visibility === 'public') {
      const pub = publicRoute(e);
      declared.set(key(surface, pub.method, fastifyPath(pub.path)), e);
    }
  }
  return declared;
}

/** A HEAD route Fastify added for a GET on the same listener. */
function isHeadTwin(k: string): boolean {
  const [surface, method, url] = k.split(' ');
  return method === 'HEAD' && routes.has(`${surface} GET ${url}`);
}

test('every route the two listeners serve is an operation of ENDPOINTS or a named non-operation', () => {
  const declared = declaredRoutes();
  const undeclared = [...routes.keys()]
    .filter((k) => !declared.has(k) && !(k in NON_OPERATIONS) && !isHeadTwin(k))
    .sort();
  assert.deepEqual(undeclared, [], 'routes outside the endpoint contract: declare them in ENDPOINTS');
  for (const k of Object.keys(NON_OPERATIONS)) {
    assert.ok(
      routes.has(k),
      `${k} is allowed as a non-operation but no longer served: drop it from the list`,
    );
  }
});

test('every operation of ENDPOINTS is served on the listener it names', () => {
  const missing = [...declaredRoutes().keys()].filter((k) => !routes.has(k)).sort();
  assert.deepEqual(missing, [], 'declared operations no listener serves');
});

test('each operation is served from its declaration (registerEndpoint), not by a hand-written route', () => {
  const handWritten = [...declaredRoutes()]
    .filter(([k, e]) => routes.get(k)?.summary !== e.summary)
    .map(([k]) => k)
    .sort();
  assert.deepEqual(handWritten, [], 'routes at a declared path whose schema is not the declaration’s');
});
