import { Button, CircularProgress } from '@mui/material';
import { useScoreCheckMutation } from '../mutations.ts';

/**
 * Update Score (SPEC 2, 8): buys a score check of the proxy at the server's price; the hook says
 * how it went in a 3-second toast, and the new G, I and M scores arrive with the reloaded agent.
 */
export function UpdateScoreButton({ agentId }: { agentId: string }) {
  const check = useScoreCheckMutation(agentId);
  return (
    <Button
      variant="contained"
      size="small"
      disabled={check.isPending}
      startIcon={check.isPending ? <CircularProgress size={14} color="inherit" /> : undefined}
      onClick={() => check.mutate()}
    >
      Update Score
    </Button>
  );
}
