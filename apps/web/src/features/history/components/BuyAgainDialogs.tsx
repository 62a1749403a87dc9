import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import { PurchaseDialogs } from '../../shop/components/PurchaseDialogs.tsx';
import { UNAVAILABLE_TEXT } from '../rules.ts';
import type { BuyAgain } from '../useBuyAgain.ts';

/** The purchase dialogs of Buy Again, and 'This proxy is currently unavailable for purchase.' */
export function BuyAgainDialogs({ buyAgain }: { buyAgain: BuyAgain }) {
  return (
    <>
      <PurchaseDialogs flow={buyAgain.flow} />
      <Dialog
        open={buyAgain.isUnavailable}
        onClose={buyAgain.clearUnavailable}
        aria-labelledby="unavailable-title"
        maxWidth="xs"
        fullWidth
        data-testid="buy-again-unavailable"
      >
        <DialogTitle id="unavailable-title">Proxy Unavailable</DialogTitle>
        <DialogContent>
          <Typography variant="body2">{UNAVAILABLE_TEXT}</Typography>
        </DialogContent>
        <DialogActions>
          <Button variant="contained" onClick={buyAgain.clearUnavailable}>
            Close
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** The Buy Again button of a history row, card or detail page. */
export function BuyAgainButton({
  buyAgain,
  item,
  size = 'small',
}: {
  buyAgain: BuyAgain;
  item: Parameters<BuyAgain['start']>[0];
  size?: 'small' | 'medium';
}) {
  const isChecking = buyAgain.checkingId === item.leaseID;
  return (
    <Button
      size={size}
      variant="outlined"
      disabled={buyAgain.checkingId !== null}
      onClick={(e) => {
        e.stopPropagation();
        e.preventDefault();
        void buyAgain.start(item);
      }}
      sx={{ whiteSpace: 'nowrap' }}
    >
      {isChecking ? 'Checking…' : 'Buy Again'}
    </Button>
  );
}
