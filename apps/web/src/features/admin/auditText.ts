import { formatUsd } from './rules.ts';

type Fields = Record<string, unknown> | null;

/** Staff-facing names of the audit rows' fields (the rest keep their own). */
const LABELS: Record<string, string> = {
  balanceC: 'balance',
  refundC: 'refund',
  creditC: 'credit',
  creditedC: 'credited in all',
  bonusC: 'bonus',
  heldC: 'held',
  refundAmountC: 'refund',
  twoFactor: 'two-factor',
  endedAt: 'ended',
};

/** One value as staff read it: cents as dollars, yes/no, lists by count or joined, never raw JSON. */
function show(key: string, v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'boolean') return key === 'twoFactor' ? (v ? 'on' : 'off') : v ? 'yes' : 'no';
  if (typeof v === 'number' && /C$/.test(key)) return formatUsd(v);
  if (Array.isArray(v)) {
    if (v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.join(', ') || 'none';
    return `${v.length} row(s)`;
  }
  if (typeof v === 'object') {
    // One level of a small object (a deep check's query): "txid abc, user_id 42".
    return Object.entries(v)
      .map(([k, x]) => `${k} ${typeof x === 'object' && x !== null ? '…' : String(x)}`)
      .join(', ');
  }
  return String(v);
}

/** A change of a list of names: what was added and removed ("+ DEPOSIT, - ADMIN"). */
function listChange(before: unknown[], after: unknown[]): string | null {
  if (![...before, ...after].every((x) => typeof x === 'string')) return null;
  const added = after.filter((x) => !before.includes(x)).map((x) => `+ ${x}`);
  const removed = before.filter((x) => !after.includes(x)).map((x) => `- ${x}`);
  return [...added, ...removed].join(', ') || 'no change';
}

/** One field's line: "balance $10.00 -> $15.00", "blocked: no -> yes", "permissions: + DEPOSIT". */
function fieldLine(key: string, before: Fields, after: Fields): string {
  const label = LABELS[key] ?? key;
  const b = before?.[key];
  const a = after?.[key];
  const inBefore = before !== null && key in before;
  const inAfter = after !== null && key in after;
  if (Array.isArray(b) && Array.isArray(a) && listChange(b, a) !== null) {
    return `${label}: ${listChange(b, a)}`;
  }
  const sep = /C$/.test(key) ? ' ' : ': ';
  if (inBefore && inAfter) return `${label}${sep}${show(key, b)} -> ${show(key, a)}`;
  if (inAfter) return `${label}${sep}${show(key, a)}`;
  return `${label} was ${show(key, b)}`;
}

/**
 * An audit row's before/after as one readable line per changed field, e.g. "balance $10.00 ->
 * $15.00", "blocked: no -> yes", "permissions: + DEPOSIT". Fields equal on both sides, fields that
 * were empty and are gone, and the customer's id (shown in its own column) are left out.
 */
export function describeAuditChange(before: Fields, after: Fields): string[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter(
    (k) => k !== 'userId',
  );
  return (
    keys
      .filter((k) => JSON.stringify(before?.[k]) !== JSON.stringify(after?.[k]) || !before || !after)
      // "ended was none" and the like say nothing: a field that was empty and is gone is left out.
      .filter((k) => (after !== null && k in after) || (before?.[k] ?? null) !== null)
      .map((k) => fieldLine(k, before, after))
  );
}

/** Audit ids that name a person: staff actors (not `operator:<name>`) and the targets of user-facing actions. */
export function auditPersonIds(rows: { actorId: string; action: string; targetId: string }[]): string[] {
  const ids = new Set<string>();
  for (const r of rows) {
    if (!r.actorId.includes(':')) ids.add(r.actorId);
    if (/^(user|account|payment)\./.test(r.action)) ids.add(r.targetId);
  }
  return [...ids];
}
