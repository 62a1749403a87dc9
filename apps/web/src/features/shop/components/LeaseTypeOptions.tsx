import { FormControlLabel, Radio, RadioGroup, Stack, Typography } from '@mui/material';
import type { TAgent } from '@pm/contracts';
import { formatUsd } from '@pm/money';
import { canBuyPrivate, canBuyShared } from '../../../lib/format/agent.ts';

/**
 * The price options Private and Shared (rules §2); an option the agent cannot take now (private with
 * leases on it, shared when four share it) is disabled.
 */
export function LeaseTypeOptions({
  agent,
  exc,
  onChange,
}: {
  agent: TAgent;
  exc: boolean;
  onChange: (exc: boolean) => void;
}) {
  const option = (isPrivate: boolean, label: string, priceC: number, enabled: boolean) => (
    <FormControlLabel
      value={isPrivate ? 'private' : 'shared'}
      disabled={!enabled}
      control={<Radio size="small" />}
      sx={{ mr: 0, flex: 1, border: 1, borderColor: 'divider', borderRadius: 1, pr: 1.5, ml: 0 }}
      label={
        <Stack direction="row" spacing={1} sx={{ justifyContent: 'space-between', width: '100%' }}>
          <Typography variant="body2">{label}</Typography>
          <Typography variant="body2" sx={{ fontWeight: 700 }}>
            {formatUsd(priceC)}
          </Typography>
        </Stack>
      }
      slotProps={{ typography: { sx: { flex: 1 } } }}
    />
  );
  return (
    <RadioGroup
      row
      aria-label="Lease type"
      value={exc ? 'private' : 'shared'}
      onChange={(_, value) => onChange(value === 'private')}
      sx={{ gap: 1, flexWrap: 'nowrap' }}
    >
      {option(true, 'Private', agent.priceExcC, canBuyPrivate(agent))}
      {option(false, 'Shared', agent.priceShrC, canBuyShared(agent))}
    </RadioGroup>
  );
}
