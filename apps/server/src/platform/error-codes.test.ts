/**
 * An error answer's `errorCode` is one its operation declares (issue 35): the contract narrows each
 * operation's error schemas to its `errorCodes`, and the error handler answers a refusal whose code
 * the operation does not declare with its status and message but without the code, logging the
 * contract's gap. Without that, the error schema would refuse the body and the refusal would
 * become a 500 (the first test shows the schema refusing it).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { AppError, ENDPOINTS, type FeatureErrorCode } from '@pm/contracts';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { callRoute } from '../test/route.ts';
import { registerEndpoint } from './endpoint.ts';
import { registerErrorHandling } from './errors.ts';

/** `POST /apikeys` refusing with `code`, on a bare app with the API's compilers and error handler. */
async function refusingApp(code: FeatureErrorCode) {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'error', stream } }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerEndpoint(app, ENDPOINTS.createApiKey, {
    handler: async () => {
      throw new AppError('CONFLICT', { userMessage: 'Refused', details: { errorCode: code } });
    },
  });
  await app.ready();
  const res = await callRoute(app, ENDPOINTS.createApiKey, { body: { name: 'ci' } });
  await app.close();
  return { res, logs };
}

test("the operation's error schema takes its own codes and refuses any other", () => {
  const conflict = ENDPOINTS.createApiKey.response[409];
  const body = { error: 'CONFLICT', message: 'Refused' };
  assert.equal(conflict.safeParse({ ...body, errorCode: 'apiKeyLimit' }).success, true);
  assert.equal(conflict.safeParse({ ...body, errorCode: 'priceChanged' }).success, false);
  // An operation that declares no code has none in its error answers.
  const plain = ENDPOINTS.revokeApiKey.response[404].parse({ ...body, errorCode: 'apiKeyLimit' });
  assert.equal('errorCode' in plain, false);
});

test('a declared code is answered', async () => {
  const { res, logs } = await refusingApp('apiKeyLimit');
  assert.equal(res.statusCode, 409);
  assert.equal(res.json().errorCode, 'apiKeyLimit');
  assert.deepEqual(logs, []);
});

test('an undeclared code keeps the refusal (status, message) but not the code, and is logged', async () => {
  const { res, logs } = await refusingApp('priceChanged');
  assert.equal(res.statusCode, 409, res.body);
  assert.equal(res.json().message, 'Refused');
  assert.equal(res.json().errorCode, undefined);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /error code not declared by the operation/);
  assert.match(logs[0]!, /"errorCode":"priceChanged"/);
});
