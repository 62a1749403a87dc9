import { Alert, Button, Stack } from '@mui/material';
import type { TLease } from '@pm/contracts';
import { useEffect, useState } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { InputField } from '../../../components/ui/InputField.tsx';
import { useAuthPortMutation } from '../mutations.ts';
import { canSaveWhitelist, checkWhitelist } from '../rules.ts';

export const NO_AUTH_PORT_TEXT =
  'No port yet: save the IP addresses that may use this proxy without a password to create one.';

/**
 * Port NoAuth (rules §2, 5): the no-auth SOCKS IP and port, and the whitelist of addresses allowed on
 * it. Save stays disabled until the field changes and while an entry is invalid.
 */
export function PortNoAuthTab({ lease }: { lease: Pick<TLease, 'id' | 'authPort'> }) {
  const saved = lease.authPort?.whitelist ?? '';
  const [text, setText] = useState(saved);
  useEffect(() => setText(saved), [saved]);
  const { mutate, isPending } = useAuthPortMutation(lease.id);
  const check = checkWhitelist(text);
  const handleSave = () => {
    if (check.ok) mutate(check.entries.join(','));
  };
  return (
    <Stack spacing={2}>
      {lease.authPort ? (
        <DetailList
          testId="auth-port"
          items={[
            { label: 'SOCKS IP', value: lease.authPort.node },
            { label: 'SOCKS Port', value: String(lease.authPort.port) },
          ]}
        />
      ) : (
        <Alert severity="info">{NO_AUTH_PORT_TEXT}</Alert>
      )}
      <InputField
        label="Whitelist"
        placeholder="203.0.113.5, 198.51.100.7"
        value={text}
        onChange={(e) => setText(e.target.value)}
        error={!check.ok}
        helperText={check.ok ? 'Comma-separated IPv4 addresses' : check.error}
        fullWidth
        size="small"
        htmlInput={{ 'aria-label': 'Whitelist', spellCheck: false }}
      />
      <Button variant="contained" disabled={!canSaveWhitelist(text, saved) || isPending} onClick={handleSave}>
        Save
      </Button>
    </Stack>
  );
}
