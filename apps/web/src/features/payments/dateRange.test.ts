import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addDays,
  dayBounds,
  dayOf,
  defaultRange,
  isDay,
  isWithin,
  rangeQuery,
  withFirst,
  withLast,
} from './dateRange.ts';

const TODAY = '2026-11-25';
const bounds = dayBounds(TODAY);

describe('payments date range (rules §5)', () => {
  it('goes back 90 days and not past today', () => {
    assert.deepEqual(bounds, { min: '2026-08-27', max: '2026-11-25' });
    assert.deepEqual(defaultRange(bounds), { first: '2026-08-27', last: '2026-11-25' });
    assert.deepEqual(withLast(defaultRange(bounds), '2026-12-01', bounds).last, '2026-11-25');
    assert.deepEqual(withFirst(defaultRange(bounds), '2026-01-01', bounds).first, '2026-08-27');
  });

  it('moving the first date past the last moves the last, and vice versa', () => {
    const range = { first: '2026-10-01', last: '2026-10-10' };
    assert.deepEqual(withFirst(range, '2026-10-20', bounds), { first: '2026-10-20', last: '2026-10-20' });
    assert.deepEqual(withFirst(range, '2026-10-05', bounds), { first: '2026-10-05', last: '2026-10-10' });
    assert.deepEqual(withLast(range, '2026-09-15', bounds), { first: '2026-09-15', last: '2026-09-15' });
    assert.deepEqual(withLast(range, '2026-10-07', bounds), { first: '2026-10-01', last: '2026-10-07' });
  });

  it('ignores a cleared or malformed date', () => {
    const range = { first: '2026-10-01', last: '2026-10-10' };
    assert.equal(withFirst(range, '', bounds), range);
    assert.equal(withLast(range, '2026-02-30', bounds), range);
    assert.equal(isDay('2026-02-28'), true);
    assert.equal(isDay('2026-2-28'), false);
    assert.equal(isWithin('2026-09-01', bounds), true);
    assert.equal(isWithin('0002-09-01', bounds), false, 'a year half typed');
    assert.equal(isWithin('2026-11-26', bounds), false);
  });

  it('does calendar arithmetic across months, years and leap days', () => {
    assert.equal(addDays('2026-03-01', -1), '2026-02-28');
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(dayOf(new Date(2026, 0, 5, 23, 59)), '2026-01-05');
  });

  it('sends the start of the first day and the start of the day after the last', () => {
    const q = rangeQuery({ first: '2026-10-01', last: '2026-10-10' });
    assert.equal(q.start, new Date(2026, 9, 1).toISOString());
    assert.equal(q.end, new Date(2026, 9, 11).toISOString());
  });
});
