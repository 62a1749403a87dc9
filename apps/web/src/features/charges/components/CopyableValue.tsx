import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Box, IconButton } from '@mui/material';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';

export const COPIED_TEXT = 'Copied to clipboard';
const COPIED_TOAST_MS = 3_000;

/** A monospace value with a copy button ("Copy address", "Copy amount") that confirms with a toast. */
export function CopyableValue({
  value,
  copyLabel,
  testId,
}: {
  value: string;
  copyLabel: string;
  testId: string;
}) {
  const showToast = useToast();
  const handleCopy = async () => {
    if (await copyText(value)) showToast(COPIED_TEXT, { autoHideMs: COPIED_TOAST_MS });
  };
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, maxWidth: '100%' }}>
      <Box component="span" data-testid={testId} sx={{ fontFamily: 'monospace', overflowWrap: 'anywhere' }}>
        {value}
      </Box>
      <IconButton size="small" aria-label={copyLabel} onClick={handleCopy} sx={{ my: -0.5 }}>
        <ContentCopyIcon fontSize="small" />
      </IconButton>
    </Box>
  );
}
