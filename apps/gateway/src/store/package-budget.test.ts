import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MuxStream } from '@pm/tunnel';
import { GRANT_BYTES, PackageBudget, PackageBudgets } from './package-budget.ts';

const stream = () => new MuxStream(1, 0);

describe('PackageBudget', () => {
  test('grants, refills an overdraft plus a grant, and takes back what a closed stream left', () => {
    const b = new PackageBudget(GRANT_BYTES * 3);
    const st = stream();
    b.grant(st);
    assert.equal(st.allowance, GRANT_BYTES);
    st.allowance -= GRANT_BYTES + 1000; // a chunk overdrew it by 1000
    assert.equal(b.refill(st), true);
    assert.equal(st.allowance, GRANT_BYTES);
    assert.equal(b.left, GRANT_BYTES - 1000);
    st.allowance -= 10;
    b.release(st);
    assert.equal(b.left, 2 * GRANT_BYTES - 1010);
    assert.equal(st.budget, null);
    b.release(st);
    assert.equal(b.left, 2 * GRANT_BYTES - 1010, 'released once');
  });

  test('an overdraft the budget cannot cover fails; a spent budget refuses new connections', () => {
    const b = new PackageBudget(5000);
    const st = stream();
    b.grant(st);
    assert.equal(st.allowance, 5000);
    assert.equal(b.hasLeft(), false);
    st.allowance -= 6000;
    assert.equal(b.refill(st), false);
    assert.equal(st.allowance, -1000);
    const late = stream();
    b.grant(late);
    assert.equal(late.allowance, 0, 'nothing to grant');
  });
});

describe('a frozen budget (a refund being decided)', () => {
  test('withdraws the open streams’ grants: their next chunk overdraws and cannot refill; nothing new', () => {
    const b = new PackageBudget(GRANT_BYTES * 4);
    const [st1, st2] = [stream(), stream()];
    b.grant(st1);
    b.grant(st2);
    st1.allowance -= 1000;
    b.freeze(Date.now() + 60_000);
    assert.deepEqual([st1.allowance, st2.allowance], [0, 0]);
    assert.equal(b.left, GRANT_BYTES * 4 - 1000, 'the unspent grants are back in the budget');
    assert.equal(b.hasLeft(), false, 'new connections refused');
    st1.allowance -= 1; // the open connection's next chunk
    assert.equal(b.refill(st1), false, 'cut');
    const late = stream();
    b.grant(late);
    assert.equal(late.allowance, 0);
    b.unfreeze();
    assert.equal(b.hasLeft(), true);
    assert.equal(b.refill(st2), true, 'unfrozen: the open connection goes on');
    assert.equal(st2.allowance, GRANT_BYTES);
  });

  test('the unlimited port freezes too; a freeze ends by itself at its expiry', () => {
    const b = new PackageBudget(Number.POSITIVE_INFINITY);
    const st = stream();
    b.grant(st);
    b.freeze(Date.now() + 60_000);
    st.allowance -= 1;
    assert.equal(b.refill(st), false);
    assert.equal(b.hasLeft(), false);
    b.unfreeze();
    b.freeze(Date.now() - 1);
    assert.equal(b.hasLeft(), true, 'expired');
    assert.equal(b.refill(st), true);
  });

  test('PackageBudgets keeps a freeze by id: a budget made after it is frozen; unfreeze and expiry end it', () => {
    const budgets = new PackageBudgets(60_000);
    budgets.freeze('p', Date.now() + 60_000);
    const b = budgets.budgetOf('p', { generation: 1, volumeBytes: 1000, usedBytes: 0 }, 0);
    assert.equal(b.hasLeft(), false, 'loaded after the request: frozen');
    assert.deepEqual(budgets.frozenIds(), ['p']);
    const fresh = budgets.budgetOf('p', { generation: 2, volumeBytes: 1000, usedBytes: 0 }, 0);
    assert.equal(fresh.hasLeft(), false, 'a new generation too');
    budgets.unfreeze('p');
    assert.equal(fresh.hasLeft(), true);
    assert.deepEqual(budgets.frozenIds(), []);
    budgets.freeze('p', Date.now() - 1);
    assert.deepEqual(budgets.frozenIds(), [], 'expired');
    assert.equal(fresh.hasLeft(), true);
  });
});

describe('PackageBudgets across reloads', () => {
  const row = (generation: number, volumeBytes: number | null, usedBytes: number) => ({
    generation,
    volumeBytes,
    usedBytes,
  });

  test('kept within a generation (the database lags), fresh for a new one; unlimited endless', () => {
    const budgets = new PackageBudgets(60_000);
    const b = budgets.budgetOf('p', row(1, 1000, 100), 0);
    assert.equal(b.left, 900);
    b.left -= 500; // spent here, not flushed yet
    assert.equal(budgets.budgetOf('p', row(1, 1000, 100), 1000), b);
    assert.equal(b.left, 400, 'the lagging database does not give back what this node spent');
    budgets.budgetOf('p', row(1, 1000, 700), 2000);
    assert.equal(b.left, 300, 'bytes from elsewhere lower it');
    budgets.budgetOf('p', row(1, 2000, 700), 3000);
    assert.equal(b.left, 1300, 'a larger volume adds the difference');
    const fresh = budgets.budgetOf('p', row(2, 2000, 0), 4000);
    assert.notEqual(fresh, b);
    assert.equal(fresh.left, 2000, 'a reactivation starts over');
    const endless = budgets.budgetOf('u', row(1, null, 5), 0);
    assert.equal(endless.left, Number.POSITIVE_INFINITY, 'the unlimited port: an endless budget');
    assert.equal(budgets.budgetOf('u', row(1, null, 9), 1000), endless, 'kept, so a freeze holds on it');
    assert.notEqual(budgets.budgetOf('u', row(1, 1000, 9), 2000), endless, 'limited now: a fresh budget');
  });

  test('a package gone from the loads keeps its budget for the grace period', () => {
    const budgets = new PackageBudgets(60_000);
    const b = budgets.budgetOf('p', row(1, 1000, 0), 0);
    b.left = 10;
    budgets.prune(30_000);
    assert.equal(budgets.budgetOf('p', row(1, 1000, 0), 30_000), b, 'back within the grace: same budget');
    budgets.prune(100_000);
    assert.equal(budgets.budgetOf('p', row(1, 1000, 0), 100_000).left, 1000, 'after it: from the database');
  });
});
