import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';

/** Account paths of the operator's wallets: BIP84 for Bitcoin and Litecoin, BIP44 coin 195 for TRON. */
const ACCOUNT_PATHS = { btc: "m/84'/0'/0'", ltc: "m/84'/2'/0'", trc20usdt: "m/44'/195'/0'" } as const;

/**
 * Throwaway account xpubs for a devnet: a random seed per currency whose private half is dropped
 * at once, so the devnet has watch-only keys exactly like production and no private key is kept.
 */
export function generateThrowawayXpubs(): Record<keyof typeof ACCOUNT_PATHS, string> {
  // The kind of key must match the addresses (the server refuses another): BIP84 zpub, BIP44 xpub.
  const ZPUB = { private: 0x04b2430c, public: 0x04b24746 };
  const XPUB = { private: 0x0488ade4, public: 0x0488b21e };
  const key = (path: string, versions: typeof ZPUB) =>
    HDKey.fromMasterSeed(randomBytes(64), versions).derive(path).publicExtendedKey;
  return {
    btc: key(ACCOUNT_PATHS.btc, ZPUB),
    ltc: key(ACCOUNT_PATHS.ltc, ZPUB),
    trc20usdt: key(ACCOUNT_PATHS.trc20usdt, XPUB),
  };
}
