import type { ScoreProviderLabel, TScoreCheck } from '@pm/contracts';

/** A stored score check: per-provider `{ status, score }`, the warnings and when (a Date, or ISO text from JSON). */
export interface StoredScoreCheck {
  results: unknown;
  warnings: unknown;
  checkedAt: Date | string | null;
}

type StoredResult = { status: 'ok' | 'error'; score: number };

/** A finished check as the API shows it (rules §3: score1..3 are G, I, M). */
export function toScoreCheck(row: StoredScoreCheck): TScoreCheck {
  const r = (row.results ?? {}) as Partial<Record<ScoreProviderLabel, StoredResult>>;
  const p = (label: ScoreProviderLabel) => r[label] ?? { status: 'error' as const, score: 0 };
  const w = (row.warnings ?? {}) as Partial<TScoreCheck['warnings']>;
  return {
    status: 'done',
    score: {
      status1: p('G').status,
      score1: p('G').score,
      status2: p('I').status,
      score2: p('I').score,
      status3: p('M').status,
      score3: p('M').score,
    },
    warnings: {
      proxy: w.proxy === true,
      tor: w.tor === true,
      vpn: w.vpn === true,
      hosting: w.hosting === true,
      abuse: w.abuse === true,
    },
    time: new Date(row.checkedAt ?? 0).toISOString(),
  };
}
