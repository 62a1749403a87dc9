import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TScoreCheck } from '@pm/contracts';
import { bandLegend, SCORE_SCALES, scoreReadings, scoreVerdict } from './scoreReading.ts';

const NO_WARNINGS = { proxy: false, tor: false, vpn: false, hosting: false, abuse: false };

/** A check as the API stores it (every score 0-100, G as probability x 100). */
function check(
  scores: [number | null, number | null, number | null],
  warnings: Partial<TScoreCheck['warnings']> = {},
): TScoreCheck {
  const s = (v: number | null) => ({ status: v === null ? 'error' : 'ok', score: v ?? 0 });
  const [g, i, m] = scores.map(s) as [ReturnType<typeof s>, ReturnType<typeof s>, ReturnType<typeof s>];
  return {
    status: 'done',
    score: {
      status1: g.status,
      score1: g.score,
      status2: i.status,
      score2: i.score,
      status3: m.status,
      score3: m.score,
    },
    warnings: { ...NO_WARNINGS, ...warnings },
    time: '2026-11-26T10:00:00Z',
  };
}

describe('score readings', () => {
  it('shows each provider on its own scale: GetIPIntel 0-1, IPQS 0-100, minFraud 0.01-99', () => {
    // The recorded fixtures of apps/server/src/modules/checks/fixtures, as the server stores them.
    const [g, i, m] = scoreReadings(check([99, 88, 78.1]));
    assert.deepEqual([g?.text, i?.text, m?.text], ['0.99', '88', '78.1']);
    assert.deepEqual([g?.scale.range, i?.scale.range, m?.scale.range], ['0 to 1', '0 to 100', '0.01 to 99']);
    assert.deepEqual([g?.band, i?.band, m?.band], ['high', 'high', 'high']);
  });

  it('reads the devnet clean profile (G 2, I 8, M 0.3) as low on every scale', () => {
    const readings = scoreReadings(check([2, 8, 0.3]));
    assert.deepEqual(
      readings.map((r) => [r.text, r.band]),
      [
        ['0.02', 'low'],
        ['8', 'low'],
        ['0.3', 'low'],
      ],
    );
  });

  it('puts each band line where the provider draws it (inclusive)', () => {
    const bands = (scores: [number, number, number]) => scoreReadings(check(scores)).map((r) => r.band);
    assert.deepEqual(bands([49.99, 74, 19.99]), ['low', 'low', 'low']);
    assert.deepEqual(bands([50, 75, 20]), ['elevated', 'elevated', 'elevated']);
    assert.deepEqual(bands([94.99, 84, 49.99]), ['elevated', 'elevated', 'elevated']);
    assert.deepEqual(bands([95, 85, 50]), ['high', 'high', 'high']);
  });

  it('leaves out a provider that did not answer', () => {
    const [g, i, m] = scoreReadings(check([null, 88, null]));
    assert.equal(g?.value, null);
    assert.equal(g?.band, null);
    assert.equal(i?.text, '88');
    assert.equal(m?.text, '');
  });

  it('names each scale and its lines for the legend', () => {
    assert.deepEqual(
      SCORE_SCALES.map((s) => s.name),
      ['GetIPIntel', 'IPQualityScore', 'MaxMind minFraud'],
    );
    assert.equal(bandLegend(SCORE_SCALES[0]!), 'Low below 0.5, Elevated from 0.5, High from 0.95');
  });
});

describe('the verdict', () => {
  it('is Clean when every answer is low and nothing is flagged', () => {
    assert.equal(scoreVerdict(check([2, 8, 0.3])), 'Clean');
  });

  it('is Suspicious for one elevated score, or a warning alone', () => {
    assert.equal(scoreVerdict(check([2, 80, 0.3])), 'Suspicious');
    assert.equal(scoreVerdict(check([2, 8, 0.3], { hosting: true })), 'Suspicious');
  });

  it('is Risky when any provider is in its high band, whatever the others say', () => {
    assert.equal(scoreVerdict(check([2, 8, 60])), 'Risky');
    assert.equal(scoreVerdict(check([99, null, null])), 'Risky');
  });

  it('does not let a silent provider make an address look clean or risky', () => {
    // A provider that failed reports score 0: it must not count as "low".
    assert.equal(scoreVerdict(check([null, 80, null])), 'Suspicious');
    assert.equal(scoreVerdict(check([null, null, null])), null);
  });
});
