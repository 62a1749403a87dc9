import { PRODUCT_NAME } from '../../../app/product.ts';
import { LegalPage } from './LegalPage.tsx';

// PLACEHOLDER legal copy (product copy to be supplied by the operator).
const SECTIONS = [
  { heading: 'Who we are', body: `${PRODUCT_NAME} operates the proxy marketplace and this website.` },
  {
    heading: 'Data we collect',
    body: 'Account data (e-mail), payment records, lease records and traffic totals.',
  },
  { heading: 'How we use it', body: 'To provide the service, prevent abuse, and meet legal obligations.' },
  {
    heading: 'Cookies',
    body: 'We use cookies for sign-in and to remember which Terms version you accepted.',
  },
  { heading: 'Retention', body: 'We keep data only as long as needed for these purposes.' },
  { heading: 'Your rights', body: 'Contact support to access, correct or delete your data.' },
] as const;

export function PrivacyPage() {
  return <LegalPage title="Privacy Policy" sections={SECTIONS} />;
}
