/**
 * How an IP score check reads (issue 36 item 4): each provider's score on its own scale with what
 * it means, and one verdict from one rule. Pure, so Node tests it and the FAQ quotes it.
 *
 * The API keeps every score on 0-100 (`score1..3` are G, I, M; apps/server checks.providers.ts):
 * GetIPIntel's probability times 100, IPQualityScore's fraud score and minFraud's risk score as
 * they come. Each is shown here on its provider's own scale again.
 */
import type { ScoreProviderLabel, TScoreCheck } from '@pm/contracts';

/** Where a score sits on its provider's scale. */
export type ScoreBand = 'low' | 'elevated' | 'high';
/** The one word a check ends in. */
export type ScoreVerdict = 'Clean' | 'Suspicious' | 'Risky';

/** A provider's scale and the lines its own documentation draws on it. */
export interface ScoreScale {
  label: ScoreProviderLabel;
  name: string;
  /** What the number is, in the provider's words. */
  meaning: string;
  /** "0 to 1", "0 to 100", "0.01 to 99". */
  range: string;
  /** The stored 0-100 score on this scale. */
  fromStored: (stored: number) => number;
  /** From here on the score is elevated, and from `highFrom` high (both inclusive). */
  elevatedFrom: number;
  highFrom: number;
  /** Decimals shown. */
  decimals: number;
}

/**
 * The three scales. GetIPIntel: a probability that the address is a proxy, VPN or bad address;
 * 0.5 is a coin toss and from 0.95 it calls the address a proxy (as our `proxy` warning does).
 * IPQualityScore: "suspicious" from 75, "high risk" from 85 (its response documentation).
 * minFraud: the chance in percent that a payment from the address is fraud (20 means 20%).
 */
export const SCORE_SCALES: readonly ScoreScale[] = [
  {
    label: 'G',
    name: 'GetIPIntel',
    meaning: 'probability that the address is a proxy, VPN or bad address',
    range: '0 to 1',
    fromStored: (s) => s / 100,
    elevatedFrom: 0.5,
    highFrom: 0.95,
    decimals: 2,
  },
  {
    label: 'I',
    name: 'IPQualityScore',
    meaning: 'fraud score',
    range: '0 to 100',
    fromStored: (s) => s,
    elevatedFrom: 75,
    highFrom: 85,
    decimals: 0,
  },
  {
    label: 'M',
    name: 'MaxMind minFraud',
    meaning: 'risk score: the chance in percent that a payment from this address is fraud',
    range: '0.01 to 99',
    fromStored: (s) => s,
    elevatedFrom: 20,
    highFrom: 50,
    decimals: 2,
  },
];

const FIELDS = {
  G: { status: 'status1', score: 'score1' },
  I: { status: 'status2', score: 'score2' },
  M: { status: 'status3', score: 'score3' },
} as const;

/** One provider's line: its score on its own scale and band, or null when it did not answer. */
export interface ScoreReading {
  scale: ScoreScale;
  value: number | null;
  /** "0.99", "88", "78.1"; empty when it did not answer. */
  text: string;
  band: ScoreBand | null;
}

export const BAND_WORDS: Record<ScoreBand, string> = { low: 'Low', elevated: 'Elevated', high: 'High' };

/** Rounds to the scale's decimals without trailing zeros ("0.99", "88", "78.1"). */
function formatOn(scale: ScoreScale, value: number): string {
  const f = 10 ** scale.decimals;
  return String(Math.round(value * f) / f);
}

function bandOf(scale: ScoreScale, value: number): ScoreBand {
  if (value >= scale.highFrom) return 'high';
  if (value >= scale.elevatedFrom) return 'elevated';
  return 'low';
}

/** Each provider's reading, in the order G, I, M. */
export function scoreReadings(check: TScoreCheck): ScoreReading[] {
  return SCORE_SCALES.map((scale) => {
    const f = FIELDS[scale.label];
    if (check.score[f.status] !== 'ok') return { scale, value: null, text: '', band: null };
    const value = scale.fromStored(check.score[f.score]);
    return { scale, value, text: formatOn(scale, value), band: bandOf(scale, value) };
  });
}

/** The warnings of a check that are raised. */
export const raisedWarnings = (check: TScoreCheck): string[] =>
  (['proxy', 'tor', 'vpn', 'hosting', 'abuse'] as const).filter((w) => check.warnings[w]);

/** The verdict rule in words (the panel and the FAQ show it). */
export const VERDICT_RULE =
  'Risky when any provider scores in its high band; Suspicious when any scores in its elevated band or raises a warning (proxy, Tor, VPN, hosting, abuse); Clean otherwise. A provider that did not answer is left out.';

/** The one verdict of a check (VERDICT_RULE); null when no provider answered. */
export function scoreVerdict(check: TScoreCheck): ScoreVerdict | null {
  const bands = scoreReadings(check).flatMap((r) => (r.band ? [r.band] : []));
  if (bands.length === 0) return null;
  if (bands.includes('high')) return 'Risky';
  if (bands.includes('elevated') || raisedWarnings(check).length > 0) return 'Suspicious';
  return 'Clean';
}

/** Each band's lines on a scale, for the legend: "Low below 0.5, Elevated from 0.5, High from 0.95". */
export function bandLegend(scale: ScoreScale): string {
  return `Low below ${scale.elevatedFrom}, Elevated from ${scale.elevatedFrom}, High from ${scale.highFrom}`;
}
