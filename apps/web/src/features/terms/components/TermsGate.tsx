import { Suspense, useState } from 'react';
import { useEnvironment } from '../../../app/context.tsx';
import { lazyNamed } from '../../../lib/lazyNamed.ts';
import { needsTermsAcceptance, readAcceptedTermsVersion } from '../termsVersion.ts';

// Only a visitor who has not accepted the current Terms downloads the modal (and the dialog code).
const TermsModal = lazyNamed(() => import('./TermsModal.tsx'), 'TermsModal');

/** Shows the Terms modal when the accepted Terms version is older than the current one. */
export function TermsGate() {
  const { termsVersion } = useEnvironment();
  const [isNeeded] = useState(() =>
    needsTermsAcceptance(readAcceptedTermsVersion(document.cookie), termsVersion),
  );
  if (!isNeeded) return null;
  return (
    <Suspense fallback={null}>
      <TermsModal />
    </Suspense>
  );
}
