import { PRODUCT_NAME } from '../../../app/product.ts';
import { LegalPage } from './LegalPage.tsx';

// PLACEHOLDER legal copy (product copy to be supplied by the operator).
const SECTIONS = [
  {
    heading: 'Acceptance of the terms',
    body: `By using ${PRODUCT_NAME} you agree to these Terms and Conditions.`,
  },
  {
    heading: 'Accounts',
    body: 'You are responsible for your account, its credentials and all activity under it.',
  },
  {
    heading: 'Proxy leases',
    body: 'Proxies are leased for 24 hours, shared or private. Refunds follow the rules stated in the FAQ.',
  },
  {
    heading: 'Prepaid balance and payments',
    body: 'The balance is topped up with cryptocurrency and is not refundable.',
  },
  { heading: 'Acceptable use', body: 'Unlawful, abusive or harmful use of the network is forbidden.' },
  { heading: 'Liability', body: 'The service is provided as is, to the extent permitted by law.' },
  {
    heading: 'Changes to these terms',
    body: 'When the terms change you will be asked to accept the new version.',
  },
] as const;

export function TermsPage() {
  return <LegalPage title="Terms and Conditions" sections={SECTIONS} />;
}
