import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError, ENDPOINTS, ZErrorBody } from '@pm/contracts';
import type { Context } from 'koa';
import { errorAnswer, sendChecked } from './answers.ts';

/** The part of a Koa context an answer writes. */
function fakeCtx() {
  const headers: Record<string, string> = {};
  const ctx = {
    status: 404,
    type: '',
    body: undefined as unknown,
    headers,
    set(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
  };
  return ctx;
}
const asCtx = (c: ReturnType<typeof fakeCtx>) => c as unknown as Context;

/** console.error's lines while `run` runs (the masked failures log theirs). */
function captureErrors(run: () => void): string[] {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(' '));
  try {
    run();
  } finally {
    console.error = original;
  }
  return lines;
}

describe("the identity host's JSON answers", () => {
  test("an AppError answers in the market's error body: the code, the text, its details", () => {
    const err = new AppError('VALIDATION_FAILED', {
      userMessage: 'email: Invalid',
      details: { field: 'email' },
    });
    assert.deepEqual(errorAnswer(ENDPOINTS.getUserInfo, err), {
      status: 400,
      body: { error: 'VALIDATION_FAILED', message: 'email: Invalid', field: 'email' },
    });
  });

  test('a 401 says Bearer, and its body is checked and sent', () => {
    const ctx = fakeCtx();
    const failed = errorAnswer(ENDPOINTS.getUserInfo, new AppError('UNAUTHENTICATED'));
    sendChecked(asCtx(ctx), ENDPOINTS.getUserInfo, failed.status, failed.body);
    assert.equal(ctx.status, 401);
    assert.equal(ctx.headers['www-authenticate'], 'Bearer');
    assert.deepEqual(ctx.body, { error: 'UNAUTHENTICATED', message: 'Authentication required' });
  });

  test("Koa's 413 for a body past the limit names the body", () => {
    const tooLarge = Object.assign(new Error('Request body too large'), { status: 413, expose: true });
    assert.deepEqual(errorAnswer(ENDPOINTS.getUserInfo, tooLarge), {
      status: 413,
      body: { error: 'VALIDATION_FAILED', message: 'body: Request body too large', field: 'body' },
    });
  });

  test('anything else is a masked 500 whose request id is in the log', () => {
    let failed: ReturnType<typeof errorAnswer> | undefined;
    const logged = captureErrors(() => {
      failed = errorAnswer(ENDPOINTS.getUserInfo, new Error('connection refused'));
    });
    assert.equal(failed?.status, 500);
    const body = ZErrorBody.parse(failed?.body);
    assert.deepEqual([body.error, body.message], ['INTERNAL', 'Something went wrong']);
    assert.ok(body.requestId && logged.some((l) => l.includes(body.requestId ?? '-')), 'request id logged');
    assert.ok(!JSON.stringify(body).includes('connection refused'), 'the cause is not shown');
  });

  test('a success answer outside its schema is refused: a masked 500, not the wrong body', () => {
    const ctx = fakeCtx();
    const logged = captureErrors(() =>
      sendChecked(asCtx(ctx), ENDPOINTS.setUserPassword, 200, { ok: 'yes', email: 'a@example.com' }),
    );
    assert.equal(ctx.status, 500);
    assert.equal(ZErrorBody.parse(ctx.body).error, 'INTERNAL');
    assert.match(logged.join('\n'), /setUserPassword answered 200 outside its schema/);
  });

  test('an answer goes out as its schema parses it: JSON, or text for a string', () => {
    const json = fakeCtx();
    sendChecked(asCtx(json), ENDPOINTS.setUserPassword, 200, { ok: true, email: 'a@example.com', extra: 1 });
    assert.deepEqual([json.status, json.body], [200, { ok: true, email: 'a@example.com' }]);
    const text = fakeCtx();
    sendChecked(asCtx(text), ENDPOINTS.requestPasswordReset, 200, 'sent');
    assert.deepEqual([text.status, text.type, text.body], [200, 'text/plain', 'sent']);
  });

  test('an error answer outside the error body (no message) is refused too', () => {
    const ctx = fakeCtx();
    captureErrors(() => sendChecked(asCtx(ctx), ENDPOINTS.getUserInfo, 400, { error: 'User not found' }));
    assert.equal(ctx.status, 500);
  });
});
