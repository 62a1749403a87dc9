import { LEASE_ID_SEARCH } from '@pm/contracts';

/** Rules §9: admin payments show traffic over 100 MB highlighted. */
export const ADMIN_TRAFFIC_HIGHLIGHT_BYTES = 100 * 1024 * 1024;
/** Rules §7/9: the admin payments load. */
export const ADMIN_PAYMENTS_LIMIT = 1000;

/**
 * The lease id in pasted text (rules §5: 4 word characters, a dash and 4 digits), lowercased as this
 * product's ids are (`abcd-1234`), so "Lease AB12-0042 (shared)" finds `ab12-0042`; null when none.
 */
export function extractLeaseId(text: string): string | null {
  const match = LEASE_ID_SEARCH.exec(text);
  return match ? match[0].toLowerCase() : null;
}

/**
 * A balance change typed by staff: whole cents (rules §5); zero, empty, fractional or non-numeric
 * input is ignored (null). A leading + or - is allowed.
 */
export function parseBalanceDelta(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?\d{1,12}$/.test(t)) return null;
  const n = Number(t);
  return Number.isSafeInteger(n) && n !== 0 ? n : null;
}

/** True over the highlight threshold. */
export const isHeavyTraffic = (bytes: number | null | undefined): boolean =>
  typeof bytes === 'number' && bytes > ADMIN_TRAFFIC_HIGHLIGHT_BYTES;

/** Today as YYYY-MM-DD in UTC. */
export const todayDay = (now: Date = new Date()): string => now.toISOString().slice(0, 10);

/** A picked day, refused when in the future or not YYYY-MM-DD (the previous value stays). */
export function pickDay(previous: string, picked: string, today: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(picked) || Number.isNaN(Date.parse(`${picked}T00:00:00Z`))) return previous;
  return picked > today ? previous : picked;
}

/** The day after `day` (the range end sent is the last date plus one day, rules §5). */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Lease ids named in a ledger memo ("Lease ab12-0042 (shared, …)", "Refund of lease …"). */
export function leaseIdInMemo(memo: string): string | null {
  return extractLeaseId(memo);
}

/** Bytes as MB with one decimal. */
export const formatMb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Cents as US dollars with 2 decimals, the sign first. */
export function formatUsd(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  return `${sign}$${(Math.abs(cents) / 100).toFixed(2)}`;
}

/**
 * The user panel's "E-mail verified" line: what the sign-in host says, and whether the market
 * account (which refuses top-ups and purchases until it learns it) knows yet.
 */
export function emailVerifiedText(
  identityVerified: boolean | undefined,
  account: { emailVerified: boolean } | null | undefined,
): string {
  if (identityVerified === undefined) return account ? (account.emailVerified ? 'yes' : 'no') : '';
  if (!identityVerified) return 'no: cannot add funds or buy until the link in the sign-up mail is opened';
  if (account && !account.emailVerified) return 'yes (the market account learns it at the next sign-in)';
  return 'yes';
}
