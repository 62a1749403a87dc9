/**
 * Watch-only deposit addresses from the operator's account-level extended public keys: BIP84
 * native segwit (P2WPKH) for Bitcoin (`bc1…`) and Litecoin (`ltc1…`), BIP44 coin 195 for TRON
 * (`T…`). The server only ever holds public keys: an extended private key is refused.
 */

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { CurrencyId } from '@pm/contracts';
import { bech32, createBase58check, hex } from '@scure/base';
import { HDKey } from '@scure/bip32';

const base58check = createBase58check(sha256);

/** SLIP-132 version bytes of public extended keys (xpub, ypub, zpub; Litecoin's Ltub and Mtub). */
const PUBLIC_VERSIONS = new Map<number, string>([
  [0x0488b21e, 'xpub'],
  [0x049d7cb2, 'ypub'],
  [0x04b24746, 'zpub'],
  [0x019da462, 'Ltub'],
  [0x01b26ef6, 'Mtub'],
]);
/**
 * The one kind of key that matches the addresses made: BIP84 native segwit (`zpub`) for the
 * bc1/ltc1 addresses of Bitcoin and Litecoin (Electrum, Sparrow and Electrum-LTC export it so),
 * BIP44 (`xpub`) for TRON. Any other spelling would make the operator's wallet look for other
 * addresses than the ones customers pay.
 */
const KIND: Record<CurrencyId, { version: number; needs: string }> = {
  btc: { version: 0x04b24746, needs: "a BIP84 zpub (account m/84'/0'/0') for bc1 addresses" },
  ltc: { version: 0x04b24746, needs: "a BIP84 zpub (account m/84'/2'/0') for ltc1 addresses" },
  trc20usdt: { version: 0x0488b21e, needs: "a BIP44 xpub (account m/44'/195'/0') for TRON addresses" },
};
/** Their private twins (xprv, yprv, zprv, Ltpv, Mtpv): never accepted. */
const PRIVATE_VERSIONS = new Set([0x0488ade4, 0x049d7878, 0x04b2430c, 0x019d9cfe, 0x01b26792]);

/** An operator's watch-only account key, ready to derive receive addresses. */
export interface AccountKey {
  currency: CurrencyId;
  key: HDKey;
  /** The receive chain (`…/0`), derived once: every address is one step below it. */
  receive: HDKey;
  /** First 8 bytes (hex) of sha256 of the account public key: tells apart charges of different wallets. */
  fingerprint: string;
}

/** Bech32 prefix of each segwit chain; TRON addresses are base58check instead. */
const HRP: Partial<Record<CurrencyId, string>> = { btc: 'bc', ltc: 'ltc' };

/**
 * Parses an account-level extended public key: a zpub (`m/84'/0'/0'`) for BTC, a zpub
 * (`m/84'/2'/0'`) for LTC, an xpub (`m/44'/195'/0'`) for TRON. Throws a message fit for a
 * configuration error on a private key, a malformed key, another kind of key, or a key that is
 * not at account depth (3).
 */
export function parseAccountKey(currency: CurrencyId, text: string): AccountKey {
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(text.trim());
  } catch {
    throw new Error(`${currency}: not a base58check extended public key`);
  }
  if (bytes.length !== 78) throw new Error(`${currency}: not an extended key (length ${bytes.length})`);
  const version = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  if (PRIVATE_VERSIONS.has(version)) {
    throw new Error(`${currency}: an extended PRIVATE key was given; configure the public key (xpub) only`);
  }
  if (!PUBLIC_VERSIONS.has(version)) {
    throw new Error(
      `${currency}: unknown extended key version 0x${version.toString(16)}; needs ${KIND[currency].needs}`,
    );
  }
  if (version !== KIND[currency].version) {
    throw new Error(`${currency}: needs ${KIND[currency].needs}, got a ${PUBLIC_VERSIONS.get(version)}`);
  }
  const key = HDKey.fromExtendedKey(text.trim(), { public: version, private: 0 });
  if (key.privateKey) throw new Error(`${currency}: an extended private key was given`);
  if (key.depth !== 3) {
    throw new Error(
      `${currency}: expected an account-level key (depth 3, e.g. m/84'/0'/0'), got depth ${key.depth}`,
    );
  }
  const fingerprint = hex.encode(sha256(key.publicKey as Uint8Array).slice(0, 8));
  return { currency, key, receive: key.deriveChild(0), fingerprint };
}

/** The P2WPKH address of a compressed public key on a bech32 chain. */
export function segwitAddress(hrp: string, publicKey: Uint8Array): string {
  const program = ripemd160(sha256(publicKey));
  return bech32.encode(hrp, [0, ...bech32.toWords(program)]);
}

/** The TRON address of a public key: base58check(0x41 ‖ last 20 bytes of keccak256(uncompressed X‖Y)). */
export function tronAddress(publicKey: Uint8Array): string {
  const uncompressed = secp256k1.Point.fromBytes(publicKey).toBytes(false);
  const hash = keccak_256(uncompressed.slice(1));
  return base58check.encode(Uint8Array.from([0x41, ...hash.slice(-20)]));
}

/** The receive address at `index` (`…/0/index`) of an account key. */
export function deriveAddress(account: AccountKey, index: number): string {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 2 ** 31) {
    throw new RangeError(`derivation index out of range: ${index}`);
  }
  const child = account.receive.deriveChild(index);
  const pub = child.publicKey as Uint8Array;
  const hrp = HRP[account.currency];
  return hrp ? segwitAddress(hrp, pub) : tronAddress(pub);
}

/** True when `address` is well formed for the currency (checksum included); says nothing about ownership. */
export function isAddressFor(currency: CurrencyId, address: string): boolean {
  try {
    const hrp = HRP[currency];
    if (hrp) {
      const decoded = bech32.decode(address as `${string}1${string}`);
      return decoded.prefix === hrp && decoded.words[0] === 0;
    }
    const bytes = base58check.decode(address);
    return bytes.length === 21 && bytes[0] === 0x41;
  } catch {
    return false;
  }
}
