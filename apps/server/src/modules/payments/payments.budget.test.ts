import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BudgetExhaustedError, createRequestBudget } from './payments.budget.ts';

const ok: typeof fetch = async () => new Response('ok');

describe('chain request budget', () => {
  test('counts requests against the UTC day and refuses past it; a new day starts again', async () => {
    let now = Date.parse('2026-11-26T23:59:00Z');
    const b = createRequestBudget({ perSecond: 1000, perDay: 3 }, ok, () => now);
    for (let i = 0; i < 3; i++) await b.fetch('http://127.0.0.1/');
    assert.equal(b.remaining(), 0);
    await assert.rejects(b.fetch('http://127.0.0.1/'), BudgetExhaustedError);
    assert.deepEqual(b.snapshot(), { day: '2026-11-26', used: 3 });
    now += 2 * 60_000;
    assert.equal(b.remaining(), 3);
  });

  test("takes the stored count of today (another worker's), not of another day", () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const b = createRequestBudget({ perSecond: 10, perDay: 100 }, ok, () => now);
    b.load({ day: '2026-11-25', used: 90 });
    assert.equal(b.remaining(), 100);
    b.load({ day: '2026-11-26', used: 60 });
    assert.equal(b.remaining(), 40);
  });

  test('paces requests to the per-second limit (wall clock)', async () => {
    const b = createRequestBudget({ perSecond: 20, perDay: 1000 }, ok, Date.now);
    const started = performance.now();
    for (let i = 0; i < 5; i++) await b.fetch('http://127.0.0.1/');
    const ms = performance.now() - started;
    assert.ok(ms >= 190, `5 requests at 20/s took ${ms.toFixed(0)} ms`);
  });
});
