import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate, formatDateTime, formatHour, formatTime } from './time.ts';

const AT = '2026-11-25T00:42:16Z';
const US = { locale: 'en-US', timeZone: 'UTC' };
const GB = { locale: 'en-GB', timeZone: 'UTC' };

/** True when the text is written on a 12-hour clock. */
const is12Hour = (s: string) => /\b(AM|PM)\b/.test(s.replaceAll('\u202f', ' '));
const norm = (s: string) => s.replaceAll('\u202f', ' ');

describe('one time format', () => {
  it("follows the locale's clock in every style: 12-hour in en-US, 24-hour in en-GB", () => {
    for (const f of [formatDateTime, formatTime, formatHour]) {
      assert.equal(is12Hour(f(AT, US)), true, `${f.name} en-US`);
      assert.equal(is12Hour(f(AT, GB)), false, `${f.name} en-GB`);
    }
  });

  it('shows minutes, never seconds (the issue: "12:36:16 AM · Retest available at 00:42")', () => {
    assert.equal(norm(formatDateTime(AT, US)), 'Nov 25, 2026, 12:42 AM');
    assert.equal(norm(formatTime(AT, US)), '12:42 AM');
    assert.equal(formatDateTime(AT, GB), '25 Nov 2026, 00:42');
    assert.equal(formatTime(AT, GB), '00:42');
    assert.equal(formatDate(AT, GB), '25 Nov 2026');
    assert.equal(formatHour('2026-11-25T13:00:00Z', GB), '25 Nov, 13:00');
    assert.equal(norm(formatHour('2026-11-25T13:00:00Z', US)), 'Nov 25, 1:00 PM');
  });

  it('takes ISO text, epoch milliseconds and Dates alike', () => {
    assert.equal(formatTime(Date.parse(AT), GB), '00:42');
    assert.equal(formatTime(new Date(AT), GB), '00:42');
  });

  it('shows what it cannot read as it came', () => {
    assert.equal(formatDateTime('not a date', GB), 'not a date');
  });

  it("uses the time zone it is given (the browser's by default)", () => {
    assert.equal(formatTime(AT, { locale: 'en-GB', timeZone: 'Asia/Tokyo' }), '09:42');
  });
});
