import { Button } from '@mui/material';
import { MessageDialog } from '../../../components/ui/StatusDialogs.tsx';
import { PurchaseDialogs } from '../../shop/components/PurchaseDialogs.tsx';
import { StaticPurchaseDialogs } from '../../static/components/StaticPurchaseDialogs.tsx';
import { UNAVAILABLE_TEXT } from '../rules.ts';
import type { BuyAgain } from '../useBuyAgain.ts';

/** The purchase dialogs of Buy Again, and 'This proxy is currently unavailable for purchase.' */
export function BuyAgainDialogs({ buyAgain }: { buyAgain: BuyAgain }) {
  return (
    <>
      <PurchaseDialogs flow={buyAgain.flow} />
      <StaticPurchaseDialogs purchase={buyAgain.staticPurchase} />
      <MessageDialog
        open={buyAgain.isUnavailable}
        title="Proxy Unavailable"
        text={UNAVAILABLE_TEXT}
        onClose={buyAgain.clearUnavailable}
        data-testid="buy-again-unavailable"
        actions={
          <Button variant="contained" onClick={buyAgain.clearUnavailable}>
            Close
          </Button>
        }
      />
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
