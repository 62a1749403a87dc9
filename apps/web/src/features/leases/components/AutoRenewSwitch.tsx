import { FormControlLabel, Switch } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useAutoRenewMutation } from '../mutations.ts';

/** 'Automatically renew': flips at once and goes back if the server refuses (rules §4). */
export function AutoRenewSwitch({ lease }: { lease: Pick<TLease, 'id' | 'autoRenew'> }) {
  const { mutate } = useAutoRenewMutation(lease.id);
  return (
    <FormControlLabel
      control={<Switch checked={lease.autoRenew} onChange={(_, checked) => mutate(checked)} />}
      label="Automatically renew"
    />
  );
}
