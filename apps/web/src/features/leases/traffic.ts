/**
 * A lease's hourly traffic (issue 19 "traffic you can check"): the hours the server sent filled
 * into a continuous series, their totals, and the bar geometry of the small chart. Pure.
 */
import type { TLeaseTrafficHour } from '@pm/contracts';

const HOUR_MS = 3_600_000;

/** Every hour from the first to the last the server sent, hours without traffic as zeros. */
export function fillHours(hours: readonly TLeaseTrafficHour[]): TLeaseTrafficHour[] {
  if (hours.length === 0) return [];
  const byHour = new Map(hours.map((h) => [Date.parse(h.hour), h]));
  const times = [...byHour.keys()].sort((a, b) => a - b);
  const out: TLeaseTrafficHour[] = [];
  for (let t = times[0]!; t <= times[times.length - 1]!; t += HOUR_MS) {
    out.push(
      byHour.get(t) ?? {
        hour: new Date(t).toISOString(),
        reqs: 0,
        fails: 0,
        authFails: 0,
        inBytes: 0,
        outBytes: 0,
      },
    );
  }
  return out;
}

export interface TrafficTotals {
  reqs: number;
  fails: number;
  /** Refused sign-ins (wrong user name or password): their own figure, never among the failed requests. */
  authFails: number;
  inBytes: number;
  outBytes: number;
}

export function trafficTotals(hours: readonly TLeaseTrafficHour[]): TrafficTotals {
  return hours.reduce(
    (t, h) => ({
      reqs: t.reqs + h.reqs,
      fails: t.fails + h.fails,
      authFails: t.authFails + h.authFails,
      inBytes: t.inBytes + h.inBytes,
      outBytes: t.outBytes + h.outBytes,
    }),
    { reqs: 0, fails: 0, authFails: 0, inBytes: 0, outBytes: 0 },
  );
}

export interface Bar {
  x: number;
  width: number;
  /** Heights (in chart units, from the baseline) of the two stacked parts. */
  lower: number;
  upper: number;
}

/**
 * Stacked bars, one an hour, scaled so the tallest reaches `height`: `lower` and `upper` pick the
 * two parts of an hour (requests that worked and failures; bytes in and out).
 */
/** The chart spans at least a lease's 24 hours, so a lease's first hours are narrow bars on the left. */
export const CHART_MIN_SLOTS = 24;

export function stackedBars(
  hours: readonly TLeaseTrafficHour[],
  width: number,
  height: number,
  lower: (h: TLeaseTrafficHour) => number,
  upper: (h: TLeaseTrafficHour) => number,
): Bar[] {
  const max = Math.max(1, ...hours.map((h) => lower(h) + upper(h)));
  const step = hours.length > 0 ? width / Math.max(hours.length, CHART_MIN_SLOTS) : 0;
  const gap = Math.min(2, step * 0.2);
  return hours.map((h, i) => ({
    x: i * step + gap / 2,
    width: Math.max(0.5, step - gap),
    lower: (lower(h) / max) * height,
    upper: (upper(h) / max) * height,
  }));
}

/** The file name of the CSV download (the one the server suggests). */
export const trafficCsvName = (leaseId: string): string => `lease-${leaseId}-traffic.csv`;

/** "1 hour", "5 hours". */
export const hoursLabel = (n: number): string => `${n} ${n === 1 ? 'hour' : 'hours'}`;

/** "1 request", "12 requests" (en-US grouping). */
export const requestsLabel = (n: number): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? 'request' : 'requests'}`;

/** "1 failed sign-in", "12 failed sign-ins": refused credentials, apart from the failed requests. */
export const failedSignInsLabel = (n: number): string =>
  `${n.toLocaleString('en-US')} failed ${n === 1 ? 'sign-in' : 'sign-ins'}`;

/**
 * The line under the chart, in the lease's own words (You to Proxy is what the customer sent, Proxy
 * to You what came back): "3 hours · 1 request · 0 failed · 2 failed sign-ins · You to Proxy 1.1 kB ·
 * Proxy to You 2.3 MB". Refused sign-ins are their own figure, never among the failed requests.
 */
export function trafficSummary(
  hourCount: number,
  totals: TrafficTotals,
  bytes: (n: number) => string,
): string {
  return [
    hoursLabel(hourCount),
    requestsLabel(totals.reqs),
    `${totals.fails.toLocaleString('en-US')} failed`,
    failedSignInsLabel(totals.authFails),
    `You to Proxy ${bytes(totals.inBytes)}`,
    `Proxy to You ${bytes(totals.outBytes)}`,
  ].join(' · ');
}
