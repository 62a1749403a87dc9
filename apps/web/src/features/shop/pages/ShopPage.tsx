import { NotAvailablePage } from '../../../components/ui/Page.tsx';

/** The proxy shop (table, country chips, filters): built by the shop release. */
export function ShopPage() {
  return <NotAvailablePage title="Shop" />;
}
