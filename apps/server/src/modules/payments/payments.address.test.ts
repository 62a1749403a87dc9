import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { HDKey } from '@scure/bip32';
import { deriveAddress, isAddressFor, parseAccountKey } from './payments.address.ts';

interface Vectors {
  rootpub_zpub_depth0: string;
  btc: Chain;
  ltc: Chain;
  trc20usdt: Chain;
}
interface Chain {
  account_keys: string[];
  addresses: { relative: string; pubkey: string; address: string }[];
}
const vectors = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/address-vectors.json'), 'utf8'),
) as Vectors;

describe('deposit addresses from account-level public keys', () => {
  for (const currency of ['btc', 'ltc', 'trc20usdt'] as const) {
    test(`${currency}: every published receive address, from each spelling of the account key`, () => {
      for (const text of vectors[currency].account_keys.filter(
        (k) => currency === 'trc20usdt' || k.startsWith('zpub'),
      )) {
        const account = parseAccountKey(currency, text);
        for (const v of vectors[currency].addresses.filter((a) => a.relative.startsWith('0/'))) {
          const index = Number(v.relative.slice(2));
          assert.equal(deriveAddress(account, index), v.address, `${currency} ${v.relative}`);
          assert.ok(isAddressFor(currency, v.address));
        }
      }
    });
  }

  test('the key kind must match the addresses: zpub for bc1/ltc1, xpub for TRON; others refused naming the need', () => {
    const [, btcXpub] = vectors.btc.account_keys as [string, string];
    const [, ltcXpub] = vectors.ltc.account_keys as [string, string];
    assert.throws(
      () => parseAccountKey('btc', btcXpub),
      /needs a BIP84 zpub .* for bc1 addresses, got a xpub/,
    );
    assert.throws(() => parseAccountKey('ltc', ltcXpub), /needs a BIP84 zpub .* for ltc1 addresses/);
    assert.throws(
      () => parseAccountKey('trc20usdt', vectors.btc.account_keys[0] as string),
      /needs a BIP44 xpub/,
    );
  });

  test('the fingerprint tells wallets apart', () => {
    const [zpub] = vectors.btc.account_keys as [string];
    assert.notEqual(
      parseAccountKey('btc', zpub).fingerprint,
      parseAccountKey('ltc', vectors.ltc.account_keys[0] as string).fingerprint,
    );
  });

  test('a private key, a root key and garbage are refused with a message', () => {
    const xprv = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).derive("m/84'/0'/0'").privateExtendedKey;
    assert.throws(() => parseAccountKey('btc', xprv), /PRIVATE key/);
    assert.throws(() => parseAccountKey('btc', vectors.rootpub_zpub_depth0), /depth 3/);
    assert.throws(() => parseAccountKey('ltc', 'zpub-not-a-key'), /base58check/);
  });

  test('address checks: right chain and checksum only', () => {
    const btc = vectors.btc.addresses[0]?.address as string;
    const ltc = vectors.ltc.addresses[0]?.address as string;
    const tron = vectors.trc20usdt.addresses[0]?.address as string;
    assert.ok(isAddressFor('btc', btc));
    assert.equal(isAddressFor('ltc', btc), false);
    assert.equal(isAddressFor('btc', `${btc.slice(0, -1)}x`), false);
    assert.equal(isAddressFor('trc20usdt', ltc), false);
    assert.equal(isAddressFor('trc20usdt', `${tron.slice(0, -1)}A`), false);
    assert.throws(() => deriveAddress(parseAccountKey('btc', vectors.btc.account_keys[0] as string), -1));
  });
});
