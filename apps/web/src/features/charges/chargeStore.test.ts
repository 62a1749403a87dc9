import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { TCryptoCreateResponse } from '@pm/contracts';
import { cents } from '@pm/money';
import {
  chargePath,
  forgetOpenCharge,
  OPEN_CHARGE_KEY,
  readOpenCharge,
  saveOpenCharge,
} from './chargeStore.ts';

class MemoryStorage {
  items = new Map<string, string>();
  getItem = (k: string) => this.items.get(k) ?? null;
  setItem = (k: string, v: string) => void this.items.set(k, v);
  removeItem = (k: string) => void this.items.delete(k);
}

const NOW = Date.parse('2026-11-25T10:00:00Z');
const created: TCryptoCreateResponse = {
  uid: '5b0c2f44-3d0e-4d4a-9f55-3f2b8f1d6a10',
  type: 'ltc',
  address: 'ltc1qexampleaddress',
  amount: '0.25000000',
  amountUSD: cents(2000),
  newChargeCode: 'AB12CD34EF56',
  expiresAt: '2026-11-25T16:00:00Z',
};

describe('open charge store', () => {
  let storage: MemoryStorage;
  beforeEach(() => {
    storage = new MemoryStorage();
  });

  it('keeps the created charge until it expires', () => {
    saveOpenCharge(storage, created);
    assert.deepEqual(readOpenCharge(storage, NOW), {
      code: 'AB12CD34EF56',
      currency: 'ltc',
      address: 'ltc1qexampleaddress',
      amountCrypto: '0.25000000',
      amountUsdC: 2000,
      expiresAt: '2026-11-25T16:00:00Z',
    });
    assert.equal(readOpenCharge(storage, Date.parse('2026-11-25T16:00:00Z')), null);
    assert.equal(storage.items.has(OPEN_CHARGE_KEY), false, 'an expired charge is removed');
  });

  it('drops unreadable data', () => {
    storage.setItem(OPEN_CHARGE_KEY, '{not json');
    assert.equal(readOpenCharge(storage, NOW), null);
    storage.setItem(OPEN_CHARGE_KEY, JSON.stringify({ code: 1 }));
    assert.equal(readOpenCharge(storage, NOW), null);
    assert.equal(storage.items.size, 0);
  });

  it('forgets only the charge that was paid or expired', () => {
    saveOpenCharge(storage, created);
    forgetOpenCharge(storage, 'ZZZZZZZZZZZZ');
    assert.notEqual(readOpenCharge(storage, NOW), null);
    forgetOpenCharge(storage, 'AB12CD34EF56');
    assert.equal(readOpenCharge(storage, NOW), null);
    saveOpenCharge(storage, created);
    forgetOpenCharge(storage);
    assert.equal(readOpenCharge(storage, NOW), null);
  });

  it('builds the charge page path', () => {
    assert.equal(chargePath('AB12CD34EF56'), '/charges/AB12CD34EF56');
  });
});
