import { randomBytes } from 'node:crypto';
import { HDKey } from '@scure/bip32';

/** Account paths of the operator's wallets: BIP84 for Bitcoin and Litecoin, BIP44 coin 195 for TRON. */
const ACCOUNT_PATHS = { btc: "m/84'/0'/0'", ltc: "m/84'/2'/0'", trc20usdt: "m/44'/195'/0'" } as const;

/**
 * Throwaway account xpubs for a devnet: a random seed per currency whose private half is dropped
 * at once, so the devnet has watch-only keys exactly like production and no private key is kept.
 */
export function generateThrowawayXpubs(): Record<keyof typeof ACCOUNT_PATHS, string> {
  const xpub = (path: string) => {
    const account = HDKey.fromMasterSeed(randomBytes(64)).derive(path);
    return account.publicExtendedKey;
  };
  return {
    btc: xpub(ACCOUNT_PATHS.btc),
    ltc: xpub(ACCOUNT_PATHS.ltc),
    trc20usdt: xpub(ACCOUNT_PATHS.trc20usdt),
  };
}
