import assert from 'node:assert/strict';
import { it } from 'node:test';
import {
  DEFAULT_STATIC_FILTER,
  reloadsStaticList,
  staticLeaseFailureOf,
  toStaticListQuery,
  withFilter,
} from './rules.ts';

it('sends only the filters set, the page as cursor and limit', () => {
  assert.deepEqual(toStaticListQuery(DEFAULT_STATIC_FILTER, { page: 0, rowsPerPage: 10 }), {
    cc: 'US',
    cursor: 0,
    limit: 10,
  });
  assert.deepEqual(
    toStaticListQuery(
      { cc: 'DE', ip: ' 45.6 ', city: 'Frank', isp: '', conn: 'wifi' },
      { page: 2, rowsPerPage: 20 },
    ),
    { cc: 'DE', cursor: 40, limit: 20, ip: '45.6', city: 'Frank', conn: 'wifi' },
  );
});

it('goes back to page 0 on a filter change, keeping the page size', () => {
  assert.deepEqual(withFilter({ page: 3, rowsPerPage: 50 }), { page: 0, rowsPerPage: 50 });
});

it('maps a refused static lease to its state', () => {
  assert.equal(staticLeaseFailureOf(402, undefined), 'NOT_ENOUGH_FUNDS');
  assert.equal(staticLeaseFailureOf(409, { errorCode: 'agentAlreadyLeased' }), 'ALREADY_LEASED');
  assert.equal(staticLeaseFailureOf(409, { errorCode: 'agentNotFound' }), 'AGENT_NOT_FOUND');
  assert.equal(staticLeaseFailureOf(409, { errorCode: 'priceChanged' }), 'GENERIC_ERROR');
  assert.equal(staticLeaseFailureOf(500, undefined), 'GENERIC_ERROR');
  assert.equal(staticLeaseFailureOf(null, undefined), 'GENERIC_ERROR');
  assert.equal(reloadsStaticList('ALREADY_LEASED'), true);
  assert.equal(reloadsStaticList('NOT_ENOUGH_FUNDS'), false);
  assert.equal(staticLeaseFailureOf(403, { errorCode: 'emailNotConfirmed' }), 'EMAIL_NOT_CONFIRMED');
  assert.equal(staticLeaseFailureOf(403, { errorCode: 'accountBlocked' }), 'GENERIC_ERROR');
  assert.equal(reloadsStaticList('EMAIL_NOT_CONFIRMED'), false);
});
