import {
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Link,
} from '@mui/material';
import { useState } from 'react';
import { useEnvironment } from '../../../app/context.tsx';
import { PRODUCT_NAME } from '../../../app/product.ts';
import { acceptedTermsCookie, needsTermsAcceptance, readAcceptedTermsVersion } from '../termsVersion.ts';

/**
 * Blocks the app until the current Terms version is accepted (rules §2, Terms modal). It has no
 * close action: backdrop clicks and Escape do nothing; only Accept dismisses it.
 */
export function TermsModal() {
  const { termsVersion } = useEnvironment();
  const [isOpen, setOpen] = useState(() =>
    needsTermsAcceptance(readAcceptedTermsVersion(document.cookie), termsVersion),
  );
  const handleAccept = () => {
    // biome-ignore lint/suspicious/noDocumentCookie: the cookie is built by acceptedTermsCookie; the Cookie Store API is missing in some supported browsers
    document.cookie = acceptedTermsCookie(termsVersion, window.location.protocol === 'https:');
    setOpen(false);
  };
  return (
    <Dialog
      open={isOpen}
      maxWidth="sm"
      fullWidth
      aria-labelledby="terms-modal-title"
      data-testid="terms-modal"
    >
      <DialogTitle id="terms-modal-title">Terms and Conditions</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 1.5 }}>
          Please read and accept the {PRODUCT_NAME} Terms and Conditions to continue. They cover how proxies
          may be used, how leases, refunds and the prepaid balance work, and that the balance is not
          refundable.
        </DialogContentText>
        <DialogContentText>
          Read the{' '}
          <Link href="/terms" target="_blank" rel="noopener">
            Terms and Conditions
          </Link>{' '}
          and the{' '}
          <Link href="/privacy" target="_blank" rel="noopener">
            Privacy Policy
          </Link>
          .
        </DialogContentText>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2 }}>
        <Button variant="contained" onClick={handleAccept}>
          Accept
        </Button>
      </DialogActions>
    </Dialog>
  );
}
