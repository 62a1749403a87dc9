import { LegalPage } from './LegalPage.tsx';

export function TermsPage() {
  return <LegalPage title="Terms and Conditions" doc="terms" />;
}
