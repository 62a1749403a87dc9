import assert from 'node:assert/strict';
import { it } from 'node:test';
import { TX_TYPES } from '@pm/contracts';
import { txTypeLabel } from './txTypes.ts';

it('names every ledger type, referral rewards and bonuses included', () => {
  assert.equal(txTypeLabel('referral'), 'Referral reward');
  assert.equal(txTypeLabel('bonus'), 'Bonus');
  assert.equal(txTypeLabel('deposit'), 'Deposit');
  for (const type of TX_TYPES) assert.notEqual(txTypeLabel(type), type, type);
  assert.equal(txTypeLabel('cashback'), 'Cashback');
});
