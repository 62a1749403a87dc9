import { LeasePricingSection } from './LeasePricingSection.tsx';
import { PortPricingSection } from './PortPricingSection.tsx';

/**
 * Pricing: the lease price list and the port price table, edited in place and saved whole. The tab
 * shows only inside the admin area, which renders for staff only (the same `isStaff` check the
 * server makes on `PUT /pricing/rules` and `PUT /pricing/ports`).
 */
export function PricingTab() {
  return (
    <>
      <LeasePricingSection />
      <PortPricingSection />
    </>
  );
}
