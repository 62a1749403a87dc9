import type { TAgent } from '@pm/contracts';
import { useCallback, useEffect, useState } from 'react';
import { useHeldLease } from '../leases/useHeldLease.ts';
import { usePurchaseMutation } from './mutations.ts';
import { type PurchaseOrder, type PurchaseState, SUCCESS_DIALOG_MS } from './purchase.ts';

export interface PurchaseFlow {
  state: PurchaseState;
  /** CONFIRM for an agent (desktop: the Confirm Purchase dialog opens). */
  open(agent: TAgent, exc: boolean): void;
  /** Changes the lease type while confirming. */
  setExc(exc: boolean): void;
  /** Buys what is being confirmed (probe first), or `order` straight away (the mobile Confirm page). */
  buy(order?: PurchaseOrder): void;
  /** TEST_FAILED: buy anyway, without the probe. */
  buyWithoutProbe(): void;
  /** Cancel or dismissal: back to OFF. */
  close(): void;
}

/**
 * The lease purchase of rules §4: OFF, CONFIRM, LEASING, then SUCCESS (closes itself after 1 s and
 * calls `onSuccessClosed`) or one of the failures, each a dialog until dismissed.
 */
export function usePurchaseFlow(onSuccessClosed?: () => void): PurchaseFlow {
  const [state, setState] = useState<PurchaseState>({ step: 'OFF' });
  const mutation = usePurchaseMutation();
  const { mutate } = mutation;
  const { find: findHeldLease } = useHeldLease();

  const send = useCallback(
    (order: PurchaseOrder, probe: boolean) => {
      setState({ step: 'LEASING', order });
      mutate(
        { order, probe },
        {
          onSuccess: () => setState({ step: 'SUCCESS' }),
          onError: async (failure) => {
            if (failure.step !== 'ALREADY_LEASED') return setState({ ...failure, order });
            // Refused as already leased: by the buyer's own lease, which the dialog then opens.
            const heldLeaseId = await findHeldLease(order.agent.id);
            setState(heldLeaseId ? { ...failure, order, heldLeaseId } : { ...failure, order });
          },
        },
      );
    },
    [mutate, findHeldLease],
  );

  useEffect(() => {
    if (state.step !== 'SUCCESS') return;
    const timer = setTimeout(() => {
      setState({ step: 'OFF' });
      onSuccessClosed?.();
    }, SUCCESS_DIALOG_MS);
    return () => clearTimeout(timer);
  }, [state.step, onSuccessClosed]);

  return {
    state,
    open: (agent, exc) => setState({ step: 'CONFIRM', order: { agent, exc } }),
    setExc: (exc) =>
      setState((s) => (s.step === 'CONFIRM' ? { step: 'CONFIRM', order: { ...s.order, exc } } : s)),
    buy: (order) => {
      const target = order ?? (state.step === 'CONFIRM' ? state.order : null);
      if (target) send(target, true);
    },
    buyWithoutProbe: () => {
      if (state.step === 'TEST_FAILED') send(state.order, false);
    },
    close: () => setState({ step: 'OFF' }),
  };
}
