import { Button, CircularProgress } from '@mui/material';
import type { TScoreCheckQuote } from '@pm/contracts';
import { useState } from 'react';
import { useScoreCheckMutation, useScoreQuoteMutation } from '../mutations.ts';
import { ConfirmScoreCheckDialog } from './ConfirmScoreCheckDialog.tsx';

/**
 * Update Score (rules §2, 8): asks the server's price first and charges nothing until the customer
 * confirms it in a dialog; the hook says how it went in a 3-second toast, and the new G, I and M
 * scores arrive with the reloaded agent.
 */
export function UpdateScoreButton({ agentId, ip }: { agentId: string; ip?: string | undefined }) {
  const quote = useScoreQuoteMutation();
  const check = useScoreCheckMutation(agentId);
  const [offer, setOffer] = useState<TScoreCheckQuote | null>(null);
  const isBusy = quote.isPending || check.isPending;
  const handleConfirm = () => {
    if (offer) check.mutate(offer);
    setOffer(null);
  };
  return (
    <>
      <Button
        variant="contained"
        size="small"
        disabled={isBusy}
        startIcon={isBusy ? <CircularProgress size={14} color="inherit" /> : undefined}
        onClick={() => quote.mutate(undefined, { onSuccess: setOffer })}
      >
        Update Score
      </Button>
      {offer && (
        <ConfirmScoreCheckDialog
          priceC={offer.priceC}
          ip={ip}
          onCancel={() => setOffer(null)}
          onConfirm={handleConfirm}
        />
      )}
    </>
  );
}
