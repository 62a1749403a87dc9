/** Name of the cookie that keeps the Terms version the visitor accepted (rules §2, Terms modal). */
export const TERMS_COOKIE = 'acceptedTermsVersion';
const ONE_YEAR_S = 365 * 24 * 3600;

/** Reads the accepted Terms version from a `document.cookie` string; null when absent or unreadable. */
export function readAcceptedTermsVersion(cookieHeader: string): number | null {
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== TERMS_COOKIE) continue;
    const value = Number(decodeURIComponent(rest.join('=')));
    return Number.isInteger(value) ? value : null;
  }
  return null;
}

/** True while the accepted version is missing or older than the current one. */
export function needsTermsAcceptance(accepted: number | null, current: number): boolean {
  return accepted === null || accepted < current;
}

/** The `document.cookie` assignment that records acceptance of `version`. */
export function acceptedTermsCookie(version: number, secure: boolean): string {
  return `${TERMS_COOKIE}=${version}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax${secure ? '; Secure' : ''}`;
}
