/**
 * Two-factor sign-in codes (TOTP, RFC 6238) over the `otpauth` library: SHA-1, 6 digits, 30-second
 * steps, the authenticator apps' defaults. No HMAC code of our own. Recovery codes are random and
 * high-entropy, so a SHA-256 of each is enough at rest (as for the mailed links).
 */
import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { PRODUCT_NAME } from './pages/views.ts';

/** Seconds per code. */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now that are accepted (clock skew of the phone): one, as RFC 6238 5.2 advises. */
const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** Recovery codes are 12 characters of a 32-letter alphabet (60 bits), shown as XXXX-XXXX-XXXX. */
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const RECOVERY_LENGTH = 12;

function totpFor(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: PRODUCT_NAME,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new secret: 160 random bits (RFC 4226's recommended length), base32 as apps expect it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` address an authenticator app reads from the QR code. */
export function totpUri(secretBase32: string, email: string): string {
  return totpFor(secretBase32, email).toString();
}

/** The QR code of `uri` as inline SVG (presentation attributes only, so the pages' CSP holds). */
export function qrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
}

/** The time step a timestamp falls in. */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_S);
}

/** A code as typed: digits only (spaces and dashes dropped); '' when it cannot be a TOTP code. */
export function cleanTotpCode(raw: unknown): string {
  const digits = typeof raw === 'string' ? raw.replace(/[\s-]/g, '') : '';
  return new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(digits) ? digits : '';
}

/**
 * The time step whose code `code` is, within one step of now; null when it matches none. The
 * caller accepts it only when it is later than the last step the account used (no replay).
 */
export function matchTotpStep(secretBase32: string, code: string, nowMs: number): number | null {
  const clean = cleanTotpCode(code);
  if (!clean) return null;
  const delta = totpFor(secretBase32).validate({ token: clean, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : totpStep(nowMs) + delta;
}

/** Ten fresh recovery codes, as shown to the user once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let code = '';
    for (let i = 0; i < RECOVERY_LENGTH; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`;
  });
}

/** A recovery code as typed, upper-cased without separators; '' when it cannot be one. */
export function cleanRecoveryCode(raw: unknown): string {
  const s = typeof raw === 'string' ? raw.toUpperCase().replace(/[\s-]/g, '') : '';
  return s.length === RECOVERY_LENGTH && [...s].every((c) => RECOVERY_ALPHABET.includes(c)) ? s : '';
}

/** What is stored of a recovery code: the SHA-256 (hex) of its clean form. */
export function hashRecoveryCode(raw: string): string {
  return createHash('sha256').update(cleanRecoveryCode(raw)).digest('hex');
}
