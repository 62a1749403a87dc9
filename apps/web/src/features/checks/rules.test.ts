import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TSpeedCheck } from '@pm/contracts';
import { retestText, SCORE_TOASTS, scoreCheckResultOf, scoreToastOf, speedViewOf } from './rules.ts';

const at = (iso: string) => Date.parse(iso);
const check = (over: Partial<TSpeedCheck>): TSpeedCheck => ({
  status: 'done',
  bps: 24_000_000,
  checkTime: '2026-11-26T10:00:30Z',
  requestedAt: '2026-11-26T10:00:00Z',
  retestAt: '2026-11-26T10:06:00Z',
  ...over,
});

it('maps score check answers to rules §4 results and rules §8 toasts', () => {
  assert.equal(scoreCheckResultOf(402), 'SCORECHECK_INSUFFICENT_FUNDS');
  assert.equal(scoreCheckResultOf(429), 'SCORECHECK_RATE_LIMITED');
  assert.equal(scoreCheckResultOf(503), 'SCORECHECK_OTHER');
  assert.equal(scoreCheckResultOf(null), 'SCORECHECK_OTHER');
  assert.deepEqual(scoreToastOf('SCORECHECK_OK'), { message: SCORE_TOASTS.ok, severity: 'success' });
  assert.equal(
    scoreToastOf('SCORECHECK_RATE_LIMITED').message,
    'You are making too many requests, try again later',
  );
  assert.equal(
    scoreToastOf('SCORECHECK_INSUFFICENT_FUNDS').message,
    'Insufficient balance, add funds and try again',
  );
  assert.equal(scoreToastOf('SCORECHECK_OTHER').message, 'An error happened, try again later');
});

it('walks the speed panel through its states; a retest is offered 6 minutes after the last ask', () => {
  const now = at('2026-11-26T10:03:00Z');
  assert.deepEqual(speedViewOf(undefined, now), { kind: 'loadingExisting' });
  assert.deepEqual(speedViewOf(null, now), { kind: 'notFound', canRetest: true });
  assert.equal(speedViewOf(check({ status: 'checking', bps: null }), now).kind, 'checking');
  assert.deepEqual(speedViewOf(check({}), now), {
    kind: 'success',
    bps: 24_000_000,
    checkTime: '2026-11-26T10:00:30Z',
    retestAt: '2026-11-26T10:06:00Z',
    canRetest: false,
  });
  const failed = speedViewOf(check({ status: 'failed', bps: null }), now);
  assert.deepEqual(failed, { kind: 'failed', retestAt: '2026-11-26T10:06:00Z', canRetest: false });
  assert.equal(speedViewOf(check({ bps: 0 }), now).kind, 'failed', 'a speed of 0 is a failure');
  const later = speedViewOf(check({ status: 'failed', bps: null }), at('2026-11-26T10:06:00Z'));
  assert.equal(later.kind === 'failed' && later.canRetest, true);
  // A rejected request (409) pushes the retest to the server's time.
  const rejected = speedViewOf(check({}), at('2026-11-26T10:06:30Z'), '2026-11-26T10:07:00Z');
  assert.equal(rejected.kind === 'success' && rejected.canRetest, false);
});

it("says when a retest opens in the browser's time format, like every other time", () => {
  const at = '2026-11-25T00:42:00Z';
  assert.equal(retestText(at, { locale: 'en-GB', timeZone: 'UTC' }), 'Retest available at 00:42');
  assert.equal(
    retestText(at, { locale: 'en-US', timeZone: 'UTC' }).replaceAll('\u202f', ' '),
    'Retest available at 12:42 AM',
  );
});
