import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TAgent } from '@pm/contracts';
import { withFirst, withLast } from '../payments/dateRange.ts';
import { buyAgainCheck, endReasonLabel, historyBounds, historyQuery, isSearchLocked } from './rules.ts';

it('offers dates from 60 days back up to today, never later', () => {
  assert.deepEqual(historyBounds('2026-03-01'), { min: '2025-12-31', max: '2026-03-01' });
});

it('moves the other date when one passes it, and keeps both inside the window', () => {
  const bounds = historyBounds('2026-03-01');
  const range = { first: '2026-02-01', last: '2026-02-10' };
  assert.deepEqual(withFirst(range, '2026-02-20', bounds), { first: '2026-02-20', last: '2026-02-20' });
  assert.deepEqual(withLast(range, '2026-01-15', bounds), { first: '2026-01-15', last: '2026-01-15' });
  assert.deepEqual(withLast(range, '2026-03-05', bounds), { first: '2026-02-01', last: '2026-03-01' });
  assert.deepEqual(withFirst(range, '2025-11-01', bounds), { first: '2025-12-31', last: '2026-02-10' });
});

it('sends the end as the last date plus one day, the page as offset and limit, the search trimmed', () => {
  const q = historyQuery({
    range: { first: '2026-02-01', last: '2026-02-10' },
    search: ' 10.0 ',
    page: 2,
    rowsPerPage: 20,
  });
  assert.equal(q.offset, 40);
  assert.equal(q.limit, 20);
  assert.equal(q.query, '10.0');
  assert.equal(q.start, new Date(2026, 1, 1).toISOString());
  assert.equal(q.end, new Date(2026, 1, 11).toISOString());
  const none = historyQuery({
    range: { first: '2026-02-01', last: '2026-02-01' },
    search: '  ',
    page: 0,
    rowsPerPage: 10,
  });
  assert.equal('query' in none, false);
  assert.equal(none.offset, 0);
});

it('locks the search button for 3 s after a click', () => {
  assert.equal(isSearchLocked(null, 5_000), false);
  assert.equal(isSearchLocked(1_000, 1_000), true);
  assert.equal(isSearchLocked(1_000, 3_999), true);
  assert.equal(isSearchLocked(1_000, 4_000), false);
});

it('names how a lease ended', () => {
  assert.equal(endReasonLabel(null), 'Active');
  assert.equal(endReasonLabel('autoRenewNoFunds'), 'Not renewed: not enough funds');
});

const agent = (count: number, online = true) =>
  ({ id: 'a1', online, leases: { count, worn: true }, priceExcC: 250, priceShrC: 90 }) as unknown as TAgent;

it('buys again as the type leased before when it still can, else the other; never an offline or full proxy', () => {
  assert.deepEqual(buyAgainCheck(null, true), { available: false });
  assert.deepEqual(buyAgainCheck(agent(0, false), true), { available: false });
  assert.deepEqual(buyAgainCheck(agent(4), false), { available: false });
  const a0 = agent(0);
  assert.deepEqual(buyAgainCheck(a0, true), { available: true, agent: a0, exc: true });
  assert.deepEqual(buyAgainCheck(a0, false), { available: true, agent: a0, exc: false });
  const a2 = agent(2);
  assert.deepEqual(buyAgainCheck(a2, true), { available: true, agent: a2, exc: false });
});
