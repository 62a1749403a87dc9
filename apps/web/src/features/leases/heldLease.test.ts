import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TLease } from '@pm/contracts';
import { findHeldLease, heldLeasePath, isHeldLeaseState } from './heldLease.ts';

const lease = (id: string, agentId: string) => ({ id, agentId }) as TLease;

describe('a proxy the customer already holds', () => {
  it('is found among the active leases by its agent', () => {
    const leases = [lease('ab12-0001', 'agent-1'), lease('ab12-0002', 'agent-2')];
    assert.equal(findHeldLease(leases, 'agent-2')?.id, 'ab12-0002');
    assert.equal(findHeldLease(leases, 'agent-3'), undefined);
    assert.equal(findHeldLease([], 'agent-1'), undefined);
  });

  it('opens on its own page on phones and selected in My Proxies on desktop', () => {
    assert.equal(heldLeasePath('ab12-0001', true), '/my/ab12-0001');
    assert.equal(heldLeasePath('ab12-0001', false), '/my?lease=ab12-0001');
    assert.equal(heldLeasePath('a/b?c', false), '/my?lease=a%2Fb%3Fc');
  });

  it('the notice shows only for a visit that came from buying it again', () => {
    assert.equal(isHeldLeaseState({ alreadyHeld: true }), true);
    for (const state of [null, undefined, {}, { alreadyHeld: 'yes' }, 'alreadyHeld'])
      assert.equal(isHeldLeaseState(state), false);
  });
});
