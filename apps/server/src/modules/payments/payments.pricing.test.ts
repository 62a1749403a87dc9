import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_DEPOSIT_C } from '@pm/contracts';
import { cents } from '@pm/money';
import { chargeCapC, isLate, nextCheckAt, OPEN_POLL, priceOutput } from './payments.pricing.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
// A $20 LTC charge at $84.00: 0.23809524 LTC due.
const base = {
  decimals: 8,
  dueBase: 23_809_524n,
  receivedBefore: 0n,
  creditedBefore: cents(0),
  lockedRateC: cents(8400),
  currentRateC: cents(8400),
  late: false,
  capC: cents(20_000),
};

describe('pricing one output', () => {
  test('on time and exact: the locked rate, whatever the current one', () => {
    const p = priceOutput({ ...base, valueBase: 23_809_524n, currentRateC: cents(4200) });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 2000);
    assert.equal(p.heldC, 0);
  });

  test('hostile: 3x paid after the coin fell by half: the part above the amount due at the lower rate', () => {
    const p = priceOutput({ ...base, valueBase: 3n * 23_809_524n, currentRateC: cents(4200) });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 2000 + 2000, 'not 6,000: the extra coins are worth what they are worth now');
  });

  test('late: the lower of locked and current for all of it; no current rate means wait', () => {
    const p = priceOutput({ ...base, valueBase: 23_809_524n, late: true, currentRateC: cents(4200) });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 1000);
    assert.equal(
      priceOutput({ ...base, valueBase: 23_809_524n, late: true, currentRateC: undefined }),
      'needsRate',
    );
    assert.equal(priceOutput({ ...base, valueBase: 30_000_000n, currentRateC: undefined }), 'needsRate');
  });

  test('hostile: 100x in one output is past the cap on its own: held whole, nothing credited', () => {
    const p = priceOutput({ ...base, valueBase: 100n * 23_809_524n });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 0);
    assert.equal(p.heldReason, 'outputOverCap');
    assert.equal(p.heldBase, 100n * 23_809_524n);
    assert.equal(p.heldC, 200_000);
  });

  test('several outputs under the cap each: credited up to the cap, the rest held', () => {
    const p = priceOutput({
      ...base,
      valueBase: 9n * 23_809_524n,
      receivedBefore: 8n * 23_809_524n,
      creditedBefore: cents(16_000),
    });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 4000);
    assert.equal(p.heldC, 18_000 - 4000);
    assert.equal(p.heldReason, 'overCap');
    assert.ok(p.heldBase > 0n && p.heldBase < 9n * 23_809_524n);
  });

  test('the cap is 10x the amount by default and never past MAX_DEPOSIT_C', () => {
    assert.equal(chargeCapC(2000, 10), 20_000);
    assert.equal(chargeCapC(MAX_DEPOSIT_C, 10), MAX_DEPOSIT_C);
  });

  test('USDT under $10 pays the small-payment fee, never below zero', () => {
    const usdt = {
      ...base,
      decimals: 6,
      dueBase: 10_000_000n,
      lockedRateC: cents(100),
      currentRateC: cents(100),
    };
    const fee = { belowC: 1000, feeC: 300 };
    const p = priceOutput({ ...usdt, valueBase: 5_000_000n, smallPaymentFee: fee });
    assert.ok(p !== 'needsRate');
    assert.equal(p.creditC, 200);
    const tiny = priceOutput({ ...usdt, valueBase: 1_000_000n, smallPaymentFee: fee });
    assert.ok(tiny !== 'needsRate');
    assert.equal(tiny.creditC, 0);
  });
});

describe('late payments', () => {
  const expiresAt = new Date(10 * HOUR);
  const at = (ms: number) => new Date(ms);
  test('made before expiry and confirmed within the allowance: on time', () => {
    assert.equal(
      isLate({ paidAt: at(9 * HOUR), confirmedAt: at(10 * HOUR + 30 * MIN), expiresAt, allowanceMs: HOUR }),
      false,
    );
  });
  test('hostile: seen before expiry but confirmed past the allowance (a free option on the rate): late', () => {
    assert.equal(
      isLate({ paidAt: at(9 * HOUR), confirmedAt: at(40 * HOUR), expiresAt, allowanceMs: HOUR }),
      true,
    );
  });
  test('made after expiry: late', () => {
    assert.equal(
      isLate({
        paidAt: at(10 * HOUR + MIN),
        confirmedAt: at(10 * HOUR + 2 * MIN),
        expiresAt,
        allowanceMs: HOUR,
      }),
      true,
    );
  });
});

describe('polling schedule', () => {
  const createdAt = new Date(0);
  const expiresAt = new Date(40 * MIN); // USDT
  const watchUntil = new Date(40 * MIN + 24 * HOUR);
  const next = (nowMs: number, hasPending = false) =>
    nextCheckAt({
      now: new Date(nowMs),
      createdAt,
      expiresAt,
      watchUntil,
      hasPending,
      intervalMs: 30_000,
    }).getTime();

  test('often while new, then half its age, a look at expiry, rarely in the grace window, never past the end', () => {
    assert.equal(next(0), 30_000);
    assert.equal(next(10 * MIN), 15 * MIN);
    assert.equal(next(35 * MIN), 40 * MIN, 'the last look before expiry is at it');
    assert.equal(next(40 * MIN), 100 * MIN, 'an hour after expiry');
    assert.equal(next(100 * MIN), 100 * MIN + 2 * HOUR, 'then twice the time since expiry');
    assert.ok(next(20 * HOUR) <= watchUntil.getTime(), 'never past the hard end');
  });

  test('a 6-hour BTC/LTC charge: the pause grows with its age, at most an hour (about 20 polls in all)', () => {
    const btc = {
      createdAt,
      expiresAt: new Date(6 * HOUR),
      watchUntil: new Date(30 * HOUR),
      hasPending: false,
      intervalMs: 30_000,
      pace: OPEN_POLL.slow,
    };
    const after = (t: number) => nextCheckAt({ ...btc, now: new Date(t) }).getTime();
    assert.equal(after(10 * MIN), 20 * MIN);
    assert.equal(after(3 * HOUR), 4 * HOUR);
    let polls = 0;
    for (let t = 0; t < btc.watchUntil.getTime() && polls < 1000; t = after(t)) polls++;
    assert.ok(polls <= 20, `${polls} polls`);
  });

  test('a payment on its way is looked at every minute', () => {
    assert.equal(next(3 * HOUR, true), 3 * HOUR + MIN);
  });

  test('the schedule scales with the watcher cycle (the devnet runs every 2 s)', () => {
    const at = (nowMs: number, hasPending: boolean) =>
      nextCheckAt({
        now: new Date(nowMs),
        createdAt,
        expiresAt,
        watchUntil,
        hasPending,
        intervalMs: 2000,
      }).getTime() - nowMs;
    assert.equal(at(3 * HOUR, true), 4000);
    assert.equal(at(45 * MIN, false), 4 * MIN);
  });

  test('a USDT charge costs at most 20 polls over its whole watch (1,000 charges: under 20,000 requests)', () => {
    let polls = 0;
    for (let t = 0; t < watchUntil.getTime() && polls < 1000; t = next(t)) polls++;
    assert.ok(polls <= 20, `${polls} polls`);
  });
});
