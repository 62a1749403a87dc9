import { LegalPage } from './LegalPage.tsx';

export function PrivacyPage() {
  return <LegalPage title="Privacy Policy" doc="privacy" />;
}
