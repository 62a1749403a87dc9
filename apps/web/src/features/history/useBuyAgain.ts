import type { TLeaseHistoryItem } from '@pm/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useApi, useIsMobile } from '../../app/context.tsx';
import { agentQuery } from '../../lib/query/agents.ts';
import { useHeldLease } from '../leases/useHeldLease.ts';
import { type PurchaseFlow, usePurchaseFlow } from '../shop/usePurchaseFlow.ts';
import { staticOfferQuery } from '../static/queries.ts';
import { type StaticPurchase, useStaticPurchase } from '../static/useStaticPurchase.ts';
import { buyAgainCheck } from './rules.ts';

export interface BuyAgain {
  /**
   * Checks the proxy (`GET /agents/{id}`; a static one in `GET /static/list/`), then opens the
   * purchase or says it is unavailable.
   */
  start(
    item: Pick<TLeaseHistoryItem, 'leaseID' | 'agentID' | 'exc' | 'static' | 'ip' | 'loc'>,
  ): Promise<void>;
  /** The lease whose proxy is being checked. */
  checkingId: string | null;
  isUnavailable: boolean;
  /** Closing the unavailable message clears it (rules §4 "Lists"). */
  clearUnavailable(): void;
  /** The shop's purchase flow (desktop dialogs). */
  flow: PurchaseFlow;
  /** The static shop's purchase (its dialogs on every screen size), for a static proxy. */
  staticPurchase: StaticPurchase;
}

/**
 * Buy Again (rules §8): a proxy the customer holds now opens that lease in My Proxies, which says so
 * (buying it again would only be refused); an available proxy goes into the shop's purchase (the
 * dialogs on desktop, the Confirm Purchase page on phones), as the lease type bought before when
 * that is still possible; a static proxy still on sale goes into the static shop's purchase
 * (private, 24 hours).
 */
export function useBuyAgain(): BuyAgain {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const isMobile = useIsMobile();
  const flow = usePurchaseFlow();
  const staticPurchase = useStaticPurchase();
  const [checkingId, setCheckingId] = useState<string | null>(null);
  const [isUnavailable, setUnavailable] = useState(false);
  const heldLease = useHeldLease();
  const start: BuyAgain['start'] = async (item) => {
    setCheckingId(item.leaseID);
    const heldId = await heldLease.find(item.agentID);
    if (heldId) {
      setCheckingId(null);
      return heldLease.open(heldId);
    }
    if (item.static) {
      const offer = await queryClient.fetchQuery(staticOfferQuery(api, item)).catch(() => null);
      setCheckingId(null);
      return offer ? staticPurchase.open(offer) : setUnavailable(true);
    }
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
  return {
    start,
    checkingId,
    isUnavailable,
    clearUnavailable: () => setUnavailable(false),
    flow,
    staticPurchase,
  };
}
