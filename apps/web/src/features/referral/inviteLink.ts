/** The invite link for a referral code: the issuer's sign-up page with `ref` (rules §2, Referral). */
export function inviteLinkFor(issuer: string, refcode: string): string {
  return `${issuer.replace(/\/+$/, '')}/signup?ref=${encodeURIComponent(refcode)}`;
}
