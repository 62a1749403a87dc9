/**
 * The Payments page's first and last date pickers (rules §5): back 90 days, no future dates, moving
 * one past the other moves the other, and the range sent ends the day after the last date. Days are
 * the visitor's calendar days, written `YYYY-MM-DD` as a date input holds them.
 */

/** How far back the Payments page's dates go (rules §5). */
export const PAYMENTS_DAYS_BACK = 90;

export interface DateRange {
  /** First day shown, `YYYY-MM-DD`. */
  first: string;
  /** Last day shown (inclusive), `YYYY-MM-DD`. */
  last: string;
}

export interface DayBounds {
  min: string;
  max: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The visitor's calendar day of an instant. */
export function dayOf(d: Date): string {
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** True for a real calendar day written `YYYY-MM-DD` (a cleared date input gives ''). */
export function isDay(s: string): boolean {
  const m = DAY.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return (
    d.getUTCFullYear() === Number(m[1]) &&
    d.getUTCMonth() === Number(m[2]) - 1 &&
    d.getUTCDate() === Number(m[3])
  );
}

/** The day `n` days after `day` (before, for negative `n`); calendar arithmetic, so DST changes do not matter. */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d + n));
  return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

/** The days a picker offers: `daysBack` days before today up to today (no future dates). */
export function dayBounds(today: string, daysBack: number = PAYMENTS_DAYS_BACK): DayBounds {
  return { min: addDays(today, -daysBack), max: today };
}

/** The range a screen opens with: the whole window. */
export function defaultRange(bounds: DayBounds): DateRange {
  return { first: bounds.min, last: bounds.max };
}

/** True for a day inside the bounds. */
export function isWithin(day: string, { min, max }: DayBounds): boolean {
  return isDay(day) && day >= min && day <= max;
}

function clamp(day: string, { min, max }: DayBounds): string {
  return day < min ? min : day > max ? max : day;
}

/** A new first date: kept inside the bounds; past the last date, it moves the last date too. */
export function withFirst(range: DateRange, first: string, bounds: DayBounds): DateRange {
  if (!isDay(first)) return range;
  const day = clamp(first, bounds);
  return { first: day, last: day > range.last ? day : range.last };
}

/** A new last date: kept inside the bounds; before the first date, it moves the first date too. */
export function withLast(range: DateRange, last: string, bounds: DayBounds): DateRange {
  if (!isDay(last)) return range;
  const day = clamp(last, bounds);
  return { first: day < range.first ? day : range.first, last: day };
}

/** Local midnight of a day as an ISO 8601 instant. */
function startOfDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d).toISOString();
}

/** `start` and `end` of `GET /txrecords`: from the first day's start to the start of the day after the last. */
export function rangeQuery(range: DateRange): { start: string; end: string } {
  return { start: startOfDay(range.first), end: startOfDay(addDays(range.last, 1)) };
}
