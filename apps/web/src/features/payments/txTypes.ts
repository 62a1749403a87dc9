/** How the Payments page names a ledger record's type (contracts' TX_TYPES). */
const TX_TYPE_LABELS: Record<string, string> = {
  deposit: 'Deposit',
  bonus: 'Bonus',
  purchase: 'Purchase',
  renewal: 'Renewal',
  refund: 'Refund',
  referral: 'Referral reward',
  adjustment: 'Adjustment',
  scorecheck: 'IP score check',
  port: 'Port',
};

/** The label of a record type; one the app does not know yet is shown capitalised. */
export function txTypeLabel(type: string): string {
  return TX_TYPE_LABELS[type] ?? (type ? type.charAt(0).toUpperCase() + type.slice(1) : '–');
}
