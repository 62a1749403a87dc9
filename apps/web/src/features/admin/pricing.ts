import {
  CONNECTIONS,
  type TConn,
  type TPortPriceRow,
  type TPricingRuleInput,
  type TPricingRules,
} from '@pm/contracts';
import { type Cents, centsToDollarString, parseDollars } from '@pm/money';

/** One lease pricing rule as staff edit it: every cell is the text typed. */
export interface RuleDraft {
  cc: string;
  /** '' matches any connection. */
  conn: '' | TConn;
  minStars: string;
  maxStars: string;
  /** '' matches any, 'yes' New agents, 'no' the others. */
  fresh: '' | 'yes' | 'no';
  priceExc: string;
  priceShr: string;
  note: string;
}

/** A port price row as staff edit it: kind and key are fixed, the value is typed. */
export interface PortDraft {
  kind: TPortPriceRow['kind'];
  key: string;
  value: string;
}

/** The result of turning drafts into a request body: the body, or the first cell's problem. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export const CONN_CHOICES: readonly ('' | TConn)[] = ['', ...CONNECTIONS];

/**
 * Dollars typed in a price cell as whole cents (`@pm/money`): "5", "5.5", "5.50" and "$5.50" are
 * 550 cents; empty text, more than 2 decimals, a sign or anything not a number gives null. The
 * server checks the bounds (its 400 text is shown).
 */
export const parseCents = (text: string): Cents | null => parseDollars(text.trim().replace(/^\$\s*/, ''));

/** Cents as the text a price cell starts with: 550 → "5.50". */
export const centsText = (c: number): string => centsToDollarString(c);

/** A whole number typed in a cell (stars, a percent); null when it is not one. */
export function parseWhole(text: string): number | null {
  const t = text.trim();
  return /^\d{1,12}$/.test(t) ? Number(t) : null;
}

/** The GET answer's rules as editable drafts, in order. */
export function toRuleDrafts(rules: TPricingRules['rules']): RuleDraft[] {
  return rules.map((r) => ({
    cc: r.cc ?? '',
    conn: r.conn ?? '',
    minStars: String(r.minStars),
    maxStars: String(r.maxStars),
    fresh: r.fresh === null ? '' : r.fresh ? 'yes' : 'no',
    priceExc: centsText(r.priceExcC),
    priceShr: centsText(r.priceShrC),
    note: r.note,
  }));
}

/** A new row's draft: matches any agent until staff narrow it, priced like `like` when given. */
export function blankRule(like?: RuleDraft): RuleDraft {
  return {
    cc: '',
    conn: '',
    minStars: '1',
    maxStars: '10',
    fresh: '',
    priceExc: like?.priceExc ?? '',
    priceShr: like?.priceShr ?? '',
    note: '',
  };
}

function ruleOf(d: RuleDraft, row: number): Parsed<TPricingRuleInput> {
  const fail = (what: string): Parsed<TPricingRuleInput> => ({
    ok: false,
    error: `Row ${row}: ${what}`,
  });
  const minStars = parseWhole(d.minStars);
  const maxStars = parseWhole(d.maxStars);
  if (minStars === null || maxStars === null) return fail('stars must be whole numbers 1-10');
  const priceExcC = parseCents(d.priceExc);
  const priceShrC = parseCents(d.priceShr);
  if (priceExcC === null) return fail('the private price must be dollars, e.g. 5.00');
  if (priceShrC === null) return fail('the shared price must be dollars, e.g. 2.00');
  const cc = d.cc.trim().toUpperCase();
  const rule: TPricingRuleInput = {
    cc: cc === '' ? null : cc,
    conn: d.conn === '' ? null : d.conn,
    minStars,
    maxStars,
    fresh: d.fresh === '' ? null : d.fresh === 'yes',
    priceExcC,
    priceShrC,
    note: d.note.trim(),
  };
  return { ok: true, value: rule };
}

/** The `PUT /pricing/rules` body from the drafts, or the first cell that is not a number. */
export function toRulesBody(drafts: readonly RuleDraft[]): Parsed<{ rules: TPricingRuleInput[] }> {
  const rules: TPricingRuleInput[] = [];
  for (const [i, d] of drafts.entries()) {
    const parsed = ruleOf(d, i + 1);
    if (!parsed.ok) return parsed;
    rules.push(parsed.value);
  }
  return { ok: true, value: { rules } };
}

/** geo, conn and access rows are percents (1-1000); the others are cents, edited as dollars. */
export const isPercentKind = (kind: TPortPriceRow['kind']): boolean =>
  kind === 'geo' || kind === 'conn' || kind === 'access';

/** The port table's rows as drafts: dollars for the cent kinds, a whole percent for the others. */
export function toPortDrafts(rows: readonly TPortPriceRow[]): PortDraft[] {
  return rows.map((r) => ({
    kind: r.kind,
    key: r.key,
    value: isPercentKind(r.kind) ? String(r.value) : centsText(r.value),
  }));
}

/** The `PUT /pricing/ports` body from the drafts, or the first value that is not a number. */
export function toPortBody(drafts: readonly PortDraft[]): Parsed<{ rows: TPortPriceRow[] }> {
  const rows: TPortPriceRow[] = [];
  for (const [i, d] of drafts.entries()) {
    const percent = isPercentKind(d.kind);
    const value = percent ? parseWhole(d.value) : parseCents(d.value);
    if (value === null) {
      const want = percent ? 'a whole percent' : 'dollars, e.g. 1.50';
      return { ok: false, error: `Row ${i + 1} (${d.kind} ${d.key}): the value must be ${want}` };
    }
    rows.push({ kind: d.kind, key: d.key, value });
  }
  return { ok: true, value: { rows } };
}
