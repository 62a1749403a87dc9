import { Box, Chip, Stack, Typography } from '@mui/material';
import type { TScoreCheck } from '@pm/contracts';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../../lib/format/time.ts';
import {
  BAND_WORDS,
  bandLegend,
  raisedWarnings,
  type ScoreBand,
  type ScoreReading,
  type ScoreVerdict,
  scoreReadings,
  scoreVerdict,
  VERDICT_RULE,
} from '../scoreReading.ts';

export const NO_SCORE_TEXT = 'No score check yet';
export const PROVIDER_ERROR_TEXT = 'Not available (provider error)';

const VERDICT_COLOR: Record<ScoreVerdict, 'success' | 'warning' | 'error'> = {
  Clean: 'success',
  Suspicious: 'warning',
  Risky: 'error',
};
const BAND_COLOR: Record<ScoreBand, 'success' | 'warning' | 'error'> = {
  low: 'success',
  elevated: 'warning',
  high: 'error',
};

/**
 * The IP score of the last check (rules §2: providers G, I and M with their scores and warnings):
 * one verdict with its rule, then each provider's score on its own scale with what it means and
 * the band it falls in; a provider that did not answer says so.
 */
export function ScorePanel({ check, action }: { check: TScoreCheck | null; action?: ReactNode }) {
  if (!check) {
    return (
      <Box sx={{ py: 2, textAlign: 'center' }}>
        <Typography>{NO_SCORE_TEXT}</Typography>
        {action && <Box sx={{ mt: 1.5 }}>{action}</Box>}
      </Box>
    );
  }
  const verdict = scoreVerdict(check);
  const warnings = raisedWarnings(check);
  return (
    <Stack spacing={1.5} data-testid="score-check">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="subtitle2">Verdict</Typography>
        <Chip
          data-testid="score-verdict"
          label={verdict ?? 'No answer'}
          color={verdict ? VERDICT_COLOR[verdict] : 'default'}
          sx={{ fontWeight: 600 }}
        />
      </Stack>
      <Typography variant="caption" color="text.secondary">
        {VERDICT_RULE}
      </Typography>
      <Stack component="ul" spacing={1.25} sx={{ listStyle: 'none', p: 0, m: 0 }}>
        {scoreReadings(check).map((r) => (
          <ProviderLine key={r.scale.label} reading={r} />
        ))}
      </Stack>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
        <Typography variant="body2" color="text.secondary">
          Warnings
        </Typography>
        {warnings.length === 0 && <Typography variant="body2">None</Typography>}
        {warnings.map((w) => (
          <Chip key={w} size="small" color="warning" label={w} />
        ))}
      </Stack>
      <Typography variant="caption" color="text.secondary">
        Checked {formatDateTime(check.time)}
      </Typography>
      {action && <Box>{action}</Box>}
    </Stack>
  );
}

/** "G GetIPIntel 0.99 (0 to 1) High" and, under it, what the number is and where its bands start. */
function ProviderLine({ reading }: { reading: ScoreReading }) {
  const { scale, band } = reading;
  return (
    <Box component="li" data-testid={`score-${scale.label}`}>
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="body2" sx={{ fontWeight: 700, minWidth: 14 }}>
          {scale.label}
        </Typography>
        <Typography variant="body2">{scale.name}</Typography>
        <Box sx={{ flexGrow: 1 }} />
        {band ? (
          <>
            <Typography variant="body2" sx={{ fontWeight: 600 }}>
              {reading.text}
            </Typography>
            <Typography variant="caption" color="text.secondary">
              ({scale.range})
            </Typography>
            <Chip size="small" variant="outlined" color={BAND_COLOR[band]} label={BAND_WORDS[band]} />
          </>
        ) : (
          <Typography variant="body2" color="text.secondary">
            {PROVIDER_ERROR_TEXT}
          </Typography>
        )}
      </Stack>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ m: 0, pl: 2.75 }}>
        {scale.meaning[0]?.toUpperCase()}
        {scale.meaning.slice(1)}. {bandLegend(scale)}.
      </Typography>
    </Box>
  );
}
