/**
 * The database away answers 503 with Retry-After, never a masked 500 (issue 38 item 5): the errors
 * node-postgres and Drizzle raise when PostgreSQL is down, restarting or unreachable are told apart
 * from every other error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { isDbUnavailable } from './db.ts';
import { registerErrorHandling } from './errors.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** Drizzle's wrapper: the driver's error as `cause`. */
const wrapped = (cause: Error) => new Error('Failed query: select 1', { cause });

const UNAVAILABLE: [string, unknown][] = [
  ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  [
    'refused on every address',
    new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')]),
  ],
  ['connection reset, through Drizzle', wrapped(withCode('read ECONNRESET', 'ECONNRESET'))],
  ['connection lost mid-query', wrapped(new Error('Connection terminated unexpectedly'))],
  ['pool timeout', new Error('timeout exceeded when trying to connect')],
  ['server shutting down', wrapped(withCode('terminating connection due to administrator command', '57P01'))],
  ['server crashed', withCode('terminating connection because of crash of another server process', '57P02')],
  ['server starting', withCode('the database system is starting up', '57P03')],
  ['connection exception class', withCode('connection failure', '08006')],
  ['too many connections', withCode('sorry, too many clients already', '53300')],
];
const OTHER: [string, unknown][] = [
  ['unique violation', wrapped(withCode('duplicate key value', '23505'))],
  ['a programming error', new TypeError('x is not a function')],
  ['a syntax error in SQL', withCode('syntax error at or near "x"', '42601')],
  ['nothing', undefined],
];

for (const [what, err] of UNAVAILABLE)
  test(`${what}: the database is unavailable`, () => assert.equal(isDbUnavailable(err), true));
for (const [what, err] of OTHER)
  test(`${what}: not an outage`, () => assert.equal(isDbUnavailable(err), false));

test('the error handler answers an outage 503 with Retry-After and anything else 500', async () => {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  app.get('/down', async () => {
    throw wrapped(new Error('Connection terminated unexpectedly'));
  });
  app.get('/bug', async () => {
    throw new TypeError('x is not a function');
  });
  // raw path: routes registered by this test to throw, not operations of the contract
  const down = await app.inject({ url: '/down' });
  assert.equal(down.statusCode, 503);
  assert.equal(down.headers['retry-after'], '5');
  assert.equal(down.json().error, 'UNAVAILABLE');
  // raw path: a route registered by this test to throw a programming error
  const bug = await app.inject({ url: '/bug' });
  assert.equal(bug.statusCode, 500);
  assert.equal(bug.headers['retry-after'], undefined);
  await app.close();
});
