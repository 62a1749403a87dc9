import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TChargePage } from '@pm/contracts';
import { chargeView, isChargeSettled } from './keptCharge.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

/** A charge page as the server answers it; only the fields the rule reads matter (cents as plain numbers). */
const page = (p: Partial<Record<keyof TChargePage, unknown>>): TChargePage =>
  ({
    status: 'new',
    expiresAt: '2026-03-01T18:00:00Z',
    creditedUsd: 0,
    bonusUsd: 0,
    ...p,
  }) as TChargePage;

describe('Add Funds shows a charge as open only while the server says it is unpaid and unexpired', () => {
  it('a kept charge is not called open before the server has answered; a just-created one is', () => {
    assert.deepEqual(chargeView('kept', undefined, NOW), { kind: 'checking' });
    assert.deepEqual(chargeView('opened', undefined, NOW), { kind: 'open', notice: 'opened' });
    assert.deepEqual(chargeView('blocked', undefined, NOW), { kind: 'open', notice: 'blocked' });
  });

  it('new and unexpired: open, with the notice it came with', () => {
    assert.deepEqual(chargeView('kept', page({}), NOW), { kind: 'open', notice: 'kept' });
    assert.deepEqual(chargeView('opened', page({}), NOW), { kind: 'open', notice: 'opened' });
  });

  it('hostile: a paid charge is never open again; it says what was credited, bonus included', () => {
    const paid = chargeView('kept', page({ status: 'paid', creditedUsd: 2000, bonusUsd: 100 }), NOW);
    assert.deepEqual(paid, { kind: 'paid', creditedC: 2100 });
    assert.equal(isChargeSettled(paid), true);
    // Even when the tab that created it is still showing it.
    assert.equal(chargeView('opened', page({ status: 'paid', creditedUsd: 500 }), NOW).kind, 'paid');
  });

  it('a payment on its way or a part paid is not "send the amount below" either', () => {
    assert.deepEqual(chargeView('kept', page({ status: 'pending' }), NOW), { kind: 'arriving' });
    assert.deepEqual(chargeView('kept', page({ status: 'partial', creditedUsd: 700 }), NOW), {
      kind: 'partial',
      creditedC: 700,
    });
    assert.equal(isChargeSettled({ kind: 'arriving' }), false);
  });

  it('expired (by status, or new past its expiry by this clock) or unknown: closed, the form again', () => {
    assert.deepEqual(chargeView('kept', page({ status: 'expired' }), NOW), { kind: 'closed' });
    assert.deepEqual(chargeView('kept', page({ expiresAt: '2026-03-01T12:00:00Z' }), NOW), {
      kind: 'closed',
    });
    assert.deepEqual(chargeView('kept', null, NOW), { kind: 'closed' });
    assert.equal(isChargeSettled({ kind: 'closed' }), true);
  });
});
