import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChainSimulator, startChainSimulator, USDT_CONTRACT } from './simulator.ts';
import { startTicker, type Ticker } from './ticker.ts';

const LTC_ADDR = 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh';
const TRON_ADDR = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';

describe('devnet chain simulator and ticker', () => {
  let sim: ChainSimulator;
  let ticker: Ticker;
  before(async () => {
    sim = await startChainSimulator({ host: '127.0.0.1', port: 0 });
    ticker = await startTicker({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await sim.close();
    await ticker.close();
  });
  const get = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, text: await res.text() };
  };

  test('Esplora: a payment is in the mempool, then confirmed with block fields, tip as plain text', async () => {
    const base = sim.esploraUrl('ltc');
    const txid = sim.pay('ltc', LTC_ADDR, '0.25', 0);
    let txs = JSON.parse((await get(`${base}/address/${LTC_ADDR}/txs`)).text);
    assert.equal(txs[0].txid, txid);
    assert.deepEqual(txs[0].status, { confirmed: false });
    assert.equal(txs[0].vout[0].value, 25_000_000);
    assert.equal(txs[0].vout[0].scriptpubkey_address, LTC_ADDR);
    const tip = Number((await get(`${base}/blocks/tip/height`)).text);
    sim.ledger.mine('ltc', 3);
    assert.equal(Number((await get(`${base}/blocks/tip/height`)).text), tip + 3);
    txs = JSON.parse((await get(`${base}/address/${LTC_ADDR}/txs`)).text);
    assert.equal(txs[0].status.confirmed, true);
    assert.equal(txs[0].status.block_height, tip + 1);
    const status = JSON.parse((await get(`${base}/tx/${txid}/status`)).text);
    assert.equal(status.block_hash, txs[0].status.block_hash);
    assert.equal((await get(`${base}/tx/${'0'.repeat(64)}`)).status, 404);
  });

  test('Esplora pages confirmed history 25 at a time after the last seen txid', async () => {
    const addr = 'ltc1qwlezpr3890hcp6vva9twqh27mr6edadreqvhnn';
    for (let i = 0; i < 30; i++) sim.pay('ltc', addr, '0.001', 1);
    const base = sim.esploraUrl('ltc');
    const first = JSON.parse((await get(`${base}/address/${addr}/txs`)).text);
    assert.equal(first.length, 25);
    const rest = JSON.parse((await get(`${base}/address/${addr}/txs/chain/${first[24].txid}`)).text);
    assert.equal(rest.length, 5);
  });

  test('TronGrid: only_confirmed, contract filter and fingerprint paging', async () => {
    const q = (extra: string, limit = 2) =>
      `${sim.tronGridUrl}/v1/accounts/${TRON_ADDR}/transactions/trc20?only_to=true&contract_address=${USDT_CONTRACT}&limit=${limit}${extra}`;
    sim.pay('tron', TRON_ADDR, '10.33', 0);
    assert.equal(JSON.parse((await get(q('&only_confirmed=true'))).text).data.length, 0);
    sim.ledger.pay({ chain: 'tron', address: TRON_ADDR, value: 5n, contract: 'TFakeTokenContract' });
    sim.ledger.mine('tron');
    sim.pay('tron', TRON_ADDR, '1', 1);
    sim.pay('tron', TRON_ADDR, '2', 1);
    const page1 = JSON.parse((await get(q('&only_confirmed=true'))).text);
    assert.equal(page1.data.length, 2);
    assert.equal(page1.data[0].value, '2000000');
    assert.equal(page1.data[0].token_info.address, USDT_CONTRACT);
    assert.ok(page1.meta.fingerprint);
    const page2 = JSON.parse(
      (await get(q(`&only_confirmed=true&fingerprint=${page1.meta.fingerprint}`))).text,
    );
    assert.deepEqual(
      page2.data.map((r: { value: string }) => r.value),
      ['10330000'],
    );
    assert.equal(page2.meta.fingerprint, undefined);
    assert.equal((await get(q('', 500))).status, 400);
  });

  test('an outage answers 503 until it ends; the control API pays and mines', async () => {
    sim.setOutage('btc', true);
    assert.equal((await get(`${sim.esploraUrl('btc')}/blocks/tip/height`)).status, 503);
    sim.setOutage('btc', false);
    const res = await fetch(`${sim.url}/_sim/pay`, {
      method: 'POST',
      body: JSON.stringify({
        chain: 'btc',
        address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
        amount: '0.001',
        blocks: 2,
      }),
    });
    const { txid } = (await res.json()) as { txid: string };
    const status = JSON.parse((await get(`${sim.esploraUrl('btc')}/tx/${txid}/status`)).text);
    assert.equal(status.confirmed, true);
    assert.match((await get(sim.url)).text, /Devnet chains/);
  });

  test('ticker: Kraken JSON under its own keys, Coinbase spot, and outages', async () => {
    const k = JSON.parse((await get(`${ticker.url}/0/public/Ticker?pair=XBTUSD,LTCUSD,USDTUSD`)).text);
    assert.deepEqual(Object.keys(k.result).sort(), ['USDTZUSD', 'XLTCZUSD', 'XXBTZUSD']);
    ticker.setPrice('ltc', '90.5');
    assert.equal(
      JSON.parse((await get(`${ticker.url}/0/public/Ticker?pair=LTCUSD`)).text).result.XLTCZUSD.c[0],
      '90.5',
    );
    ticker.setOutage('kraken', true);
    assert.equal((await get(`${ticker.url}/0/public/Ticker?pair=LTCUSD`)).status, 503);
    const cb = JSON.parse((await get(`${ticker.url}/v2/prices/LTC-USD/spot`)).text);
    assert.equal(cb.data.amount, '90.5');
  });
});
