/**
 * The charge the add-funds form created last, kept in local storage while its address waits for a
 * payment (rules §4 "Add funds": the form shows the created charge until it is reset; its stored data
 * is removed when the charge is paid or expired). Free of React so Node can test it.
 */
import type { CurrencyId, TCryptoCreateResponse } from '@pm/contracts';
import type { Cents } from '@pm/money';

export const OPEN_CHARGE_KEY = 'pm.openCharge';

/** What the add-funds form shows of a created charge. */
export interface OpenCharge {
  code: string;
  currency: CurrencyId;
  address: string;
  amountCrypto: string;
  amountUsdC: Cents;
  /** ISO 8601: the address stops waiting then, and the stored data is dropped. */
  expiresAt: string;
}

type KeyValueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Keeps a charge `POST /crypto/create` answered. */
export function saveOpenCharge(storage: KeyValueStore, charge: TCryptoCreateResponse): OpenCharge {
  const open: OpenCharge = {
    code: charge.newChargeCode,
    currency: charge.type,
    address: charge.address,
    amountCrypto: charge.amount,
    amountUsdC: charge.amountUSD,
    expiresAt: charge.expiresAt,
  };
  storage.setItem(OPEN_CHARGE_KEY, JSON.stringify(open));
  return open;
}

function isOpenCharge(v: unknown): v is OpenCharge {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.code === 'string' &&
    typeof o.currency === 'string' &&
    typeof o.address === 'string' &&
    typeof o.amountCrypto === 'string' &&
    typeof o.amountUsdC === 'number' &&
    typeof o.expiresAt === 'string'
  );
}

/** The kept charge, or null; an expired or unreadable one is removed. */
export function readOpenCharge(storage: KeyValueStore, nowMs: number): OpenCharge | null {
  const text = storage.getItem(OPEN_CHARGE_KEY);
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (!isOpenCharge(value) || !(Date.parse(value.expiresAt) > nowMs)) {
    storage.removeItem(OPEN_CHARGE_KEY);
    return null;
  }
  return value;
}

/** Removes the kept charge when it is this one (paid or expired), or any when `code` is omitted. */
export function forgetOpenCharge(storage: KeyValueStore, code?: string): void {
  const text = storage.getItem(OPEN_CHARGE_KEY);
  if (text === null) return;
  if (code !== undefined) {
    try {
      const kept = JSON.parse(text) as { code?: unknown };
      if (kept?.code !== code) return;
    } catch {
      // unreadable: drop it below
    }
  }
  storage.removeItem(OPEN_CHARGE_KEY);
}

/** The charge page of a code, which the add-funds flow opens in a new tab. */
export const chargePath = (code: string): string => `/charges/${encodeURIComponent(code)}`;
