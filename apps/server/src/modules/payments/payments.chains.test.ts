import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChainSimulator, startChainSimulator } from '@pm/devnet/chain';
import { TEST_XPUBS } from '../../test/app.ts';
import { deriveAddress, parseAccountKey } from './payments.address.ts';
import { createEsploraClient, createTronGridClient } from './payments.chains.ts';
import { DEFAULT_PAYMENTS_SETTINGS, type PaymentsSettings } from './payments.config.ts';

let chain: ChainSimulator;
let settings: PaymentsSettings;
before(async () => {
  chain = await startChainSimulator({ host: '127.0.0.1', port: 0 });
  settings = {
    ...DEFAULT_PAYMENTS_SETTINGS,
    esplora: { btc: { url: chain.esploraUrl('btc') }, ltc: { url: chain.esploraUrl('ltc') } },
    trongrid: { ...DEFAULT_PAYMENTS_SETTINGS.trongrid, url: chain.tronGridUrl },
  };
});
after(() => chain?.close());

const btcAddress = (i: number) => deriveAddress(parseAccountKey('btc', TEST_XPUBS.btc), i);
const tronAddress = (i: number) => deriveAddress(parseAccountKey('trc20usdt', TEST_XPUBS.trc20usdt), i);

describe('Esplora client', () => {
  test('hostile: malformed entries are skipped and logged, the rest of the address is still read', async () => {
    const address = btcAddress(900);
    const txid = chain.pay('btc', address, '0.001', 1);
    const bad = [
      { txid: 'not-hex', vout: [], status: { confirmed: true, block_height: 1 } },
      {
        txid: 'a'.repeat(64),
        vout: [{ scriptpubkey_address: address, value: 0.5 }],
        status: { confirmed: true, block_height: 1 },
      },
      {
        txid: 'b'.repeat(64),
        vout: [{ scriptpubkey_address: address, value: -5 }],
        status: { confirmed: true, block_height: 1 },
      },
      {
        txid: 'c'.repeat(64),
        vout: [{ scriptpubkey_address: address, value: 0 }],
        status: { confirmed: true, block_height: 1 },
      },
      {
        txid: 'd'.repeat(64),
        vout: [{ scriptpubkey_address: address, value: 9e18 }],
        status: { confirmed: true, block_height: 1 },
      },
      null,
    ];
    for (const e of bad) chain.ledger.addRawEntry('btc', address, e as object);
    const logged: Record<string, unknown>[] = [];
    const client = createEsploraClient('btc', settings, fetch, (d) => logged.push(d));
    const outputs = await client.scanAddress(address, { sinceMs: 0, withPending: true });
    assert.deepEqual(
      outputs.map((o) => [o.txid, o.valueBase]),
      [[txid, 100_000n]],
    );
    assert.equal(logged.length, bad.length);
  });

  test('hostile: verify re-reads address and value, not only depth (a forged list entry credits nothing)', async () => {
    const victim = btcAddress(901);
    const attacker = btcAddress(902);
    const realTxid = chain.pay('btc', victim, '0.0001', 3); // a real, deep transaction to someone else
    const client = createEsploraClient('btc', settings);
    const forged = { txid: realTxid, outKey: '0', valueBase: 100_000_000n, confirmed: true };
    const other = await client.verify(forged, attacker, 1);
    assert.equal(other.state, 'mismatch');
    const inflated = await client.verify(forged, victim, 1);
    assert.equal(inflated.state, 'mismatch');
    const honest = await client.verify({ ...forged, valueBase: 10_000n }, victim, 3);
    assert.equal(honest.state, 'deep');
    assert.equal((await client.verify({ ...forged, valueBase: 10_000n }, victim, 4)).state, 'shallow');
    assert.equal((await client.verify({ ...forged, txid: 'e'.repeat(64) }, victim, 1)).state, 'missing');
  });
});

describe('TronGrid client', () => {
  test('hostile: a forged list row is not confirmed by the transaction events; a real one is', async () => {
    const address = tronAddress(900);
    const real = chain.pay('tron', address, '25', 1);
    chain.ledger.addRawEntry('tron', address, {
      transaction_id: 'f'.repeat(64),
      token_info: { address: settings.trongrid.usdtContract },
      to: address,
      type: 'Transfer',
      value: '1000000000000',
      block_timestamp: Date.now(),
    });
    chain.ledger.addRawEntry('tron', address, {
      transaction_id: 'x',
      token_info: { address: settings.trongrid.usdtContract },
      to: address,
      type: 'Transfer',
      value: '1.5',
    });
    const logged: Record<string, unknown>[] = [];
    const client = createTronGridClient(settings, fetch, (d) => logged.push(d));
    const outputs = await client.scanAddress(address, { sinceMs: 0, withPending: true });
    assert.equal(outputs.length, 2, 'the forged row is listed; the malformed one skipped');
    assert.equal(logged.length, 1);
    const forged = outputs.find((o) => o.txid === 'f'.repeat(64));
    const honest = outputs.find((o) => o.txid === real);
    assert.ok(forged && honest);
    assert.equal((await client.verify(forged, address, 1)).state, 'missing');
    assert.equal((await client.verify(honest, address, 1)).state, 'deep');
    assert.equal((await client.verify({ ...honest, valueBase: 26_000_000n }, address, 1)).state, 'mismatch');
    assert.equal((await client.verify(honest, tronAddress(901), 1)).state, 'mismatch');
  });
});
