import { ENDPOINTS, type TScoreCheck, type TScoreCheckQuote } from '@pm/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { useToast } from '../../components/ui/Toasts.tsx';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { isApiError } from '../../lib/api/transport.ts';
import { invalidateAgent, invalidateBalance } from '../../lib/query/invalidate.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { requestSpeedCheck, type SpeedRequestOutcome } from './queries.ts';
import { SCORE_TOAST_MS, type ScoreCheckResult, scoreCheckResultOf, scoreToastOf } from './rules.ts';

/** Statuses the score check explains with a toast; 401 and 502 still go to sign-in and maintenance. */
const SCORE_HANDLED_STATUSES = [400, 402, 403, 404, 409, 429, 500, 503] as const;

/** The 3-second toast of a score check result (rules §8). */
function useScoreToast() {
  const showToast = useToast();
  return (result: ScoreCheckResult) => {
    const t = scoreToastOf(result);
    showToast(t.message, { autoHideMs: SCORE_TOAST_MS, severity: t.severity });
  };
}

/**
 * Update Score, first step: `POST /agents/scorecheck` for the price and a one-time token. Nothing
 * is charged yet: the customer sees the price and confirms (or cancels, and the token expires).
 */
export function useScoreQuoteMutation() {
  const api = useApi();
  const toast = useScoreToast();
  return useMutation<TScoreCheckQuote, ScoreCheckResult>({
    mutationFn: async () => {
      try {
        return await callEndpoint(api, ENDPOINTS.quoteScoreCheck, { ignoreStatuses: SCORE_HANDLED_STATUSES });
      } catch (e) {
        throw scoreCheckResultOf(isApiError(e) ? e.status : null);
      }
    },
    onError: (result) => toast(result),
  });
}

/**
 * Update Score, once confirmed: `PATCH /agents/scorecheck` at the quoted price with its token.
 * The result shows as a 3-second toast (rules §8), from the hook rather than the button: the button
 * moves when the panel gets its first check, and a `mutate()` callback of an unmounted button
 * would never run. Then the agent (its score check), the balance and the payments reload.
 */
export function useScoreCheckMutation(agentId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  const toast = useScoreToast();
  return useMutation<TScoreCheck, ScoreCheckResult, TScoreCheckQuote>({
    mutationFn: async (quote) => {
      try {
        return await callEndpoint(api, ENDPOINTS.buyScoreCheck, {
          body: { agentID: agentId, expectedPriceC: quote.priceC, oneTimeToken: quote.oneTimeToken },
          ignoreStatuses: SCORE_HANDLED_STATUSES,
        });
      } catch (e) {
        throw scoreCheckResultOf(isApiError(e) ? e.status : null);
      }
    },
    onSuccess: () => toast('SCORECHECK_OK'),
    onError: (result) => toast(result),
    onSettled: () => Promise.all([invalidateAgent(queryClient, agentId), invalidateBalance(queryClient)]),
  });
}

/** Test Now: asks for a speed test and puts the job (or the last one, when refused) in the speed query. */
export function useSpeedTestMutation(agentId: string) {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation<SpeedRequestOutcome>({
    mutationFn: () => requestSpeedCheck(api, agentId),
    onSuccess: (outcome) => {
      if (outcome.check) queryClient.setQueryData(queryKeys.agents.speedCheck(agentId), outcome.check);
    },
  });
}
