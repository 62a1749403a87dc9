/**
 * The one way the web app shows a moment (issue 36 item 10): the browser's locale decides the
 * order, the names and 12- or 24-hour time, and every screen asks here, so a page never mixes
 * "12:36:16 AM" with "00:42". Minutes, never seconds. Pure apart from the browser's defaults, so
 * Node tests it with an explicit locale and time zone.
 */

/** Test seams: a fixed locale and time zone instead of the browser's. */
export interface TimeFormatOptions {
  locale?: string | undefined;
  timeZone?: string | undefined;
}

type At = string | number | Date;

const STYLES = {
  /** "Nov 25, 2026, 10:04 AM" (en-US), "25 Nov 2026, 10:04" (en-GB). */
  dateTime: { dateStyle: 'medium', timeStyle: 'short' },
  /** "10:04 AM", "10:04". */
  time: { timeStyle: 'short' },
  /** "Nov 25, 2026", "25 Nov 2026". */
  date: { dateStyle: 'medium' },
  /** A chart's hour slot: "Nov 25, 10:00 AM", "25 Nov, 10:00". */
  hour: { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

type Style = keyof typeof STYLES;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per style, locale and zone (building one costs more than formatting). */
function formatterOf(style: Style, o: TimeFormatOptions): Intl.DateTimeFormat {
  const key = `${style}|${o.locale ?? ''}|${o.timeZone ?? ''}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(o.locale, { ...STYLES[style], timeZone: o.timeZone });
    formatters.set(key, f);
  }
  return f;
}

/** A moment in `style`; what cannot be read as a date is shown as it came. */
function format(style: Style, at: At, o: TimeFormatOptions): string {
  const d = at instanceof Date ? at : new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : formatterOf(style, o).format(d);
}

/** Date and time to the minute: tables, "Checked …", "Until …". */
export const formatDateTime = (at: At, o: TimeFormatOptions = {}): string => format('dateTime', at, o);
/** Time of day to the minute: "Retest available at …". */
export const formatTime = (at: At, o: TimeFormatOptions = {}): string => format('time', at, o);
/** The day alone. */
export const formatDate = (at: At, o: TimeFormatOptions = {}): string => format('date', at, o);
/** An hour slot of a chart: day and hour. */
export const formatHour = (at: At, o: TimeFormatOptions = {}): string => format('hour', at, o);
