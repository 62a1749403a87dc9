import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { Box, Button, Chip, IconButton, Stack, Typography } from '@mui/material';
import type { TSocks } from '@pm/contracts';
import { useState } from 'react';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';
import {
  CONNECTION_STRING_FORMAT,
  connectionString,
  httpConnectionString,
  MASKED_PASSWORD,
  socksAddress,
} from '../rules.ts';

export const COPIED_TEXT = 'Copied to clipboard';
const COPIED_TOAST_MS = 3_000;

/**
 * Socks Auth (rules §2): username, the password masked to 10 dots with a reveal toggle, the SOCKS IP,
 * the four SOCKS ports and Copy connection string. The ports are the lease answer's (`socks.ports`,
 * `socks.httpPort`): the server knows what the node listens on, so nothing here adds offsets.
 */
export function SocksAuthTab({ socks }: { socks: TSocks }) {
  const [isRevealed, setRevealed] = useState(false);
  const showToast = useToast();
  const handleCopy = async () => {
    if (await copyText(connectionString(socks))) showToast(COPIED_TEXT, { autoHideMs: COPIED_TOAST_MS });
  };
  return (
    <Stack spacing={2}>
      <DetailList
        testId="socks-auth"
        items={[
          { label: 'Username', value: <Mono>{socks.user}</Mono> },
          {
            label: 'Password',
            value: (
              <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
                <Mono testId="socks-password">{isRevealed ? socks.pwd : MASKED_PASSWORD}</Mono>
                <IconButton
                  size="small"
                  aria-label={isRevealed ? 'Hide password' : 'Show password'}
                  onClick={() => setRevealed((r) => !r)}
                  sx={{ my: -0.5 }}
                >
                  {isRevealed ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
                </IconButton>
              </Box>
            ),
          },
          { label: 'SOCKS IP', value: <Mono>{socksAddress(socks)}</Mono> },
          {
            label: 'HTTP proxy',
            value: <Mono testId="http-proxy">{`http://${socksAddress(socks)}:${socks.httpPort}`}</Mono>,
          },
          {
            label: 'SOCKS Port',
            value: (
              <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }} data-testid="socks-ports">
                {socks.ports.map((port) => (
                  <Chip key={port} size="small" label={port} variant="outlined" />
                ))}
              </Stack>
            ),
          },
        ]}
      />
      <Button
        variant="outlined"
        startIcon={<ContentCopyIcon />}
        onClick={() => void handleCopy()}
        aria-describedby="connection-string-format"
      >
        Copy connection string
      </Button>
      <Button
        variant="outlined"
        startIcon={<ContentCopyIcon />}
        onClick={() =>
          void copyText(httpConnectionString(socks)).then(
            (ok) => ok && showToast(COPIED_TEXT, { autoHideMs: COPIED_TOAST_MS }),
          )
        }
        data-testid="copy-http"
      >
        Copy HTTP connection string
      </Button>
      <Typography variant="caption" color="text.secondary" id="connection-string-format">
        Copies <code>{CONNECTION_STRING_FORMAT}</code> with the first port. It works as pasted, e.g.{' '}
        <code>curl -x 'socks5h://…' https://example.com</code>; every port above takes the same login. The
        HTTP proxy (for browsers and tools that speak HTTP proxies) takes it too, e.g.{' '}
        <code>curl -x 'http://…' https://example.com</code>.
      </Typography>
    </Stack>
  );
}

function Mono({ children, testId }: { children: string; testId?: string }) {
  return (
    <Box component="span" data-testid={testId} sx={{ fontFamily: 'monospace', fontSize: 14 }}>
      {children}
    </Box>
  );
}
