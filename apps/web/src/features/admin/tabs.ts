/**
 * The admin area's tabs and their names in the address (`/bigadmin?tab=audit`): rules §2's five,
 * then the audit trail and the price tables. No `tab` (or an unknown one) is the first tab.
 */
export const ADMIN_TABS = [
  { label: 'User Info', slug: 'user' },
  { label: 'User Balance', slug: 'balance' },
  { label: 'Lease Info', slug: 'lease' },
  { label: 'Transaction Info', slug: 'transactions' },
  { label: 'User Payments', slug: 'payments' },
  { label: 'Audit', slug: 'audit' },
  { label: 'Pricing', slug: 'pricing' },
] as const;

export type AdminTabSlug = (typeof ADMIN_TABS)[number]['slug'];

/** The tab index of the address's `tab` parameter. */
export function adminTabIndex(slug: string | null): number {
  const index = ADMIN_TABS.findIndex((t) => t.slug === slug);
  return index < 0 ? 0 : index;
}

/** The `tab` parameter of a tab index (the first tab's for one out of range). */
export const adminTabSlug = (index: number): AdminTabSlug => (ADMIN_TABS[index] ?? ADMIN_TABS[0]).slug;
