import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCharge, isChargeClosed, isPollingDone, isZeroCrypto } from './status.ts';

const base = {
  status: 'new',
  late: false,
  over: false,
  currency: 'btc',
  confirmationsRequired: 2,
  pendingCrypto: '0',
} as const;

describe('charge status wording', () => {
  it('names every status in plain words', () => {
    const labels = (['new', 'pending', 'partial', 'paid', 'expired'] as const).map(
      (status) => describeCharge({ ...base, status }).label,
    );
    assert.deepEqual(labels, ['No payments', 'Pending', 'Partly paid', 'Paid', 'Expired']);
    assert.equal(describeCharge({ ...base, status: 'paid' }).tone, 'success');
    assert.equal(describeCharge({ ...base, status: 'expired' }).tone, 'error');
  });

  it('says how many confirmations a pending payment waits for', () => {
    assert.match(describeCharge({ ...base, status: 'pending' }).detail, /waiting for 2 confirmations/);
    assert.match(
      describeCharge({ ...base, status: 'pending', confirmationsRequired: 1 }).detail,
      /waiting for 1 confirmation\./,
    );
    assert.match(
      describeCharge({ ...base, status: 'pending', currency: 'trc20usdt' }).detail,
      /waiting for the network to confirm it/,
    );
  });

  it('explains over, late and short payments', () => {
    const paid = describeCharge({ ...base, status: 'paid', over: true, late: true }).detail;
    assert.match(paid, /credited to your balance/);
    assert.match(paid, /More than the requested amount arrived/);
    assert.match(paid, /after this address expired/);
    assert.doesNotMatch(describeCharge({ ...base, status: 'paid' }).detail, /More than|expired/);
    assert.match(describeCharge({ ...base, status: 'partial' }).detail, /send the rest to the same address/);
    assert.match(
      describeCharge({ ...base, status: 'partial', late: true }).detail,
      /after this address expired/,
    );
    assert.match(
      describeCharge({ ...base, status: 'partial', pendingCrypto: '0.001' }).detail,
      /Another payment has arrived and is waiting for 2 confirmations/,
    );
  });

  it('polls until paid and forgets the kept charge when paid or expired', () => {
    assert.deepEqual(
      (['new', 'pending', 'partial', 'paid', 'expired'] as const).map((s) => [
        isPollingDone(s),
        isChargeClosed(s),
      ]),
      [
        [false, false],
        [false, false],
        [false, false],
        [true, true],
        [false, true],
      ],
    );
  });

  it('reads zero crypto amounts', () => {
    for (const zero of ['0', '0.0', '0.00000000', '00']) assert.equal(isZeroCrypto(zero), true, zero);
    for (const some of ['0.00000001', '1', '10.5']) assert.equal(isZeroCrypto(some), false, some);
  });
});
