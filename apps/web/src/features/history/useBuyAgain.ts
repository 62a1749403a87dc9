import type { TLeaseHistoryItem } from '@pm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi, useIsMobile } from '../../app/context.tsx';
import { agentQuery } from '../shop/queries.ts';
import { type PurchaseFlow, usePurchaseFlow } from '../shop/usePurchaseFlow.ts';
import { buyAgainCheck } from './rules.ts';

export interface BuyAgain {
  /** Checks the proxy with `GET /agents/{id}`, then opens the purchase or says it is unavailable. */
  start(item: Pick<TLeaseHistoryItem, 'leaseID' | 'agentID' | 'exc'>): Promise<void>;
  /** The lease whose proxy is being checked. */
  checkingId: string | null;
  isUnavailable: boolean;
  /** Closing the unavailable message clears it (SPEC 4 "Lists"). */
  clearUnavailable(): void;
  /** The shop's purchase flow (desktop dialogs). */
  flow: PurchaseFlow;
}

/**
 * Buy Again (SPEC 8): an available proxy goes into the shop's purchase (the dialogs on desktop, the
 * Confirm Purchase page on phones), as the lease type bought before when that is still possible.
 */
export function useBuyAgain(): BuyAgain {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const isMobile = useIsMobile();
  const flow = usePurchaseFlow();
  const [checkingId, setCheckingId] = useState<string | null>(null);
  const [isUnavailable, setUnavailable] = useState(false);
  const start: BuyAgain['start'] = async (item) => {
    setCheckingId(item.leaseID);
    const agent = await queryClient
      .fetchQuery({ ...agentQuery(api, item.agentID), staleTime: 0, retry: false })
      .catch(() => null);
    setCheckingId(null);
    const check = buyAgainCheck(agent, item.exc);
    if (!check.available) return setUnavailable(true);
    if (!isMobile) return flow.open(check.agent, check.exc);
    const type = check.exc ? 'private' : 'shared';
    await navigate(`/confirm-purchase?agent=${encodeURIComponent(check.agent.id)}&type=${type}`);
  };
  return { start, checkingId, isUnavailable, clearUnavailable: () => setUnavailable(false), flow };
}
