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

describe('PackageBudgets across reloads', () => {
  const row = (generation: number, volumeBytes: number | null, usedBytes: number) => ({
    generation,
    volumeBytes,
    usedBytes,
  });

  test('kept within a generation (the database lags), fresh for a new one; unlimited has none', () => {
    const budgets = new PackageBudgets(60_000);
    const b = budgets.budgetOf('p', row(1, 1000, 100), 0)!;
    assert.equal(b.left, 900);
    b.left -= 500; // spent here, not flushed yet
    assert.equal(budgets.budgetOf('p', row(1, 1000, 100), 1000), b);
    assert.equal(b.left, 400, 'the lagging database does not give back what this node spent');
    budgets.budgetOf('p', row(1, 1000, 700), 2000);
    assert.equal(b.left, 300, 'bytes from elsewhere lower it');
    budgets.budgetOf('p', row(1, 2000, 700), 3000);
    assert.equal(b.left, 1300, 'a larger volume adds the difference');
    const fresh = budgets.budgetOf('p', row(2, 2000, 0), 4000)!;
    assert.notEqual(fresh, b);
    assert.equal(fresh.left, 2000, 'a reactivation starts over');
    assert.equal(budgets.budgetOf('u', row(1, null, 5), 0), undefined);
  });

  test('a package gone from the loads keeps its budget for the grace period', () => {
    const budgets = new PackageBudgets(60_000);
    const b = budgets.budgetOf('p', row(1, 1000, 0), 0)!;
    b.left = 10;
    budgets.prune(30_000);
    assert.equal(budgets.budgetOf('p', row(1, 1000, 0), 30_000), b, 'back within the grace: same budget');
    budgets.prune(100_000);
    assert.equal(budgets.budgetOf('p', row(1, 1000, 0), 100_000)!.left, 1000, 'after it: from the database');
  });
});
