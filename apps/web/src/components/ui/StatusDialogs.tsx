import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import {
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { type ReactNode, useId } from 'react';

/** A dialog that cannot be closed while work runs: a spinner named `label` and `text`, which names the dialog. */
export function ProgressDialog({ text, label }: { text: string; label: string }) {
  const titleId = useId();
  return (
    <Dialog open aria-labelledby={titleId} maxWidth="xs" fullWidth>
      <DialogContent>
        <Stack spacing={2} sx={{ alignItems: 'center', py: 2 }}>
          <CircularProgress aria-label={label} />
          <Typography id={titleId}>{text}</Typography>
        </Stack>
      </DialogContent>
    </Dialog>
  );
}

interface SuccessDialogProps {
  title: string;
  text?: string;
  actions?: ReactNode;
  onClose: () => void;
  'data-testid'?: string;
}

/** A green check, `title` (the dialog's name), an optional line under it and optional actions. */
export function SuccessDialog({ title, text, actions, onClose, 'data-testid': testId }: SuccessDialogProps) {
  const titleId = useId();
  return (
    <Dialog open onClose={onClose} aria-labelledby={titleId} maxWidth="xs" fullWidth data-testid={testId}>
      <DialogContent>
        <Stack spacing={1.5} sx={{ alignItems: 'center', py: 2, textAlign: 'center' }}>
          <CheckCircleIcon color="success" sx={{ fontSize: 48 }} />
          <Typography id={titleId} variant="h6">
            {title}
          </Typography>
          {text && (
            <Typography variant="body2" color="text.secondary">
              {text}
            </Typography>
          )}
        </Stack>
      </DialogContent>
      {actions && <DialogActions>{actions}</DialogActions>}
    </Dialog>
  );
}

interface MessageDialogProps {
  title: string;
  /** The body's first paragraph; `children` follow it. */
  text?: ReactNode;
  children?: ReactNode;
  actions: ReactNode;
  onClose: () => void;
  open?: boolean;
  maxWidth?: 'xs' | 'sm';
  'data-testid'?: string;
}

/** A titled dialog (the title names it) with a body and its buttons: confirmations and failures. */
export function MessageDialog({
  title,
  text,
  children,
  actions,
  onClose,
  open = true,
  maxWidth = 'xs',
  'data-testid': testId,
}: MessageDialogProps) {
  const titleId = useId();
  return (
    <Dialog
      open={open}
      onClose={onClose}
      aria-labelledby={titleId}
      maxWidth={maxWidth}
      fullWidth
      data-testid={testId}
    >
      <DialogTitle id={titleId}>{title}</DialogTitle>
      {(text || children) && (
        <DialogContent>
          {text && <Typography variant="body2">{text}</Typography>}
          {children}
        </DialogContent>
      )}
      <DialogActions>{actions}</DialogActions>
    </Dialog>
  );
}
