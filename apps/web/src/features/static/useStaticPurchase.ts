import type { TStaticAgent } from '@pm/contracts';
import { useEffect, useState } from 'react';
import { SUCCESS_DIALOG_MS } from '../shop/purchase.ts';
import { useStaticLeaseMutation } from './mutations.ts';
import type { StaticLeaseStep } from './rules.ts';

export interface StaticPurchase {
  step: StaticLeaseStep;
  agent: TStaticAgent | null;
  open(agent: TStaticAgent): void;
  buy(): void;
  close(): void;
}

/** The static lease of rules §4: CONFIRM, LEASING, then SUCCESS (gone after 1 s) or a failure dialog. */
export function useStaticPurchase(): StaticPurchase {
  const [step, setStep] = useState<StaticLeaseStep>('OFF');
  const [agent, setAgent] = useState<TStaticAgent | null>(null);
  const { mutate } = useStaticLeaseMutation();
  useEffect(() => {
    if (step !== 'SUCCESS') return;
    const timer = setTimeout(() => setStep('OFF'), SUCCESS_DIALOG_MS);
    return () => clearTimeout(timer);
  }, [step]);
  return {
    step,
    agent,
    open: (next) => {
      setAgent(next);
      setStep('CONFIRM');
    },
    buy: () => {
      if (!agent) return;
      setStep('LEASING');
      mutate(agent, { onSuccess: () => setStep('SUCCESS'), onError: (failure) => setStep(failure) });
    },
    close: () => setStep('OFF'),
  };
}
