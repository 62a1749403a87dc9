import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../lib/api/transport.ts';
import { ADMIN_GLOBAL_ERROR, toAdminError } from './adminClient.ts';
import {
  emailVerifiedText,
  extractLeaseId,
  isHeavyTraffic,
  nextDay,
  parseBalanceDelta,
  pickDay,
} from './rules.ts';

describe('admin rules (rules §5, 8, 9)', () => {
  test('the lease id is found in pasted text, in the form the product stores', () => {
    assert.equal(extractLeaseId('ab12-0042'), 'ab12-0042');
    assert.equal(extractLeaseId('Lease AB12-0042 (shared, 1.2.3.4)'), 'ab12-0042');
    assert.equal(extractLeaseId('refund please: x9z0-1234.'), 'x9z0-1234');
    assert.equal(extractLeaseId('ab1-0042'), null);
    assert.equal(extractLeaseId('abcd-12x4'), null);
  });
  test('a balance change is whole cents; zero or non-numeric is ignored', () => {
    assert.equal(parseBalanceDelta('250'), 250);
    assert.equal(parseBalanceDelta(' -75 '), -75);
    assert.equal(parseBalanceDelta('+5'), 5);
    for (const bad of ['0', '-0', '', 'abc', '1.5', '1e3', '10$'])
      assert.equal(parseBalanceDelta(bad), null, bad);
  });
  test('traffic over 100 MB is highlighted, 100 MB itself is not', () => {
    assert.equal(isHeavyTraffic(100 * 1024 * 1024), false);
    assert.equal(isHeavyTraffic(100 * 1024 * 1024 + 1), true);
    assert.equal(isHeavyTraffic(null), false);
  });
  test('future or malformed days are refused; the end sent is the next day', () => {
    assert.equal(pickDay('2026-01-01', '2026-01-05', '2026-01-10'), '2026-01-05');
    assert.equal(pickDay('2026-01-01', '2026-01-11', '2026-01-10'), '2026-01-01');
    assert.equal(pickDay('2026-01-01', 'soon', '2026-01-10'), '2026-01-01');
    assert.equal(nextDay('2026-02-28'), '2026-03-01');
  });
  test('errors: 400 gives the server text (both hosts answer one body), anything else global error', () => {
    assert.equal(toAdminError(new ApiError(400, { message: 'bad' }, 'none', 'x')).message, 'bad');
    assert.equal(
      toAdminError(new ApiError(400, { error: 'NOT_FOUND', message: 'User not found' }, 'none', 'x')).message,
      'User not found',
    );
    // `error` is the code, not a text for people.
    assert.equal(
      toAdminError(new ApiError(400, { error: 'NOT_FOUND' }, 'none', 'x')).message,
      ADMIN_GLOBAL_ERROR,
    );
    assert.equal(
      toAdminError(new ApiError(403, { message: 'no' }, 'none', 'x')).message,
      `${ADMIN_GLOBAL_ERROR} (403: no)`,
    );
    assert.equal(toAdminError(new ApiError(500, { message: 'db' }, 'none', 'x')).message, ADMIN_GLOBAL_ERROR);
    assert.equal(toAdminError(new ApiError(null, undefined, 'offline', 'x')).message, ADMIN_GLOBAL_ERROR);
    assert.equal(toAdminError(new Error('boom')).message, ADMIN_GLOBAL_ERROR);
  });
});

test('says whether the user confirmed the address and whether the market account knows it', () => {
  assert.match(emailVerifiedText(false, { emailVerified: false }), /^no: cannot add funds or buy/);
  assert.equal(emailVerifiedText(true, { emailVerified: true }), 'yes');
  assert.match(emailVerifiedText(true, { emailVerified: false }), /learns it at the next sign-in/);
  assert.equal(emailVerifiedText(undefined, null), '');
});
