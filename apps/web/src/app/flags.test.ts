import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createFlagStore, fullScreenStateOf } from './flags.ts';

it('notifies subscribers only on a real change', () => {
  const store = createFlagStore();
  let calls = 0;
  const unsubscribe = store.subscribe(() => calls++);
  store.set({ offline: true });
  store.set({ offline: true });
  assert.equal(calls, 1);
  assert.equal(store.get().offline, true);
  unsubscribe();
  store.set({ globalError: true });
  assert.equal(calls, 1);
});

it('picks the full-screen state by priority', () => {
  const none = { busy: false, offline: false, maintenance: false, globalError: false };
  assert.equal(fullScreenStateOf(none), null);
  assert.equal(fullScreenStateOf({ ...none, busy: true }), null);
  assert.equal(fullScreenStateOf({ ...none, globalError: true }), 'error');
  assert.equal(fullScreenStateOf({ ...none, globalError: true, offline: true }), 'offline');
  assert.equal(fullScreenStateOf({ ...none, offline: true, maintenance: true }), 'maintenance');
});
