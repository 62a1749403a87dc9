import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ADMIN_TABS, adminTabIndex, adminTabSlug } from './tabs.ts';

it('names each admin tab once in the address and reads it back', () => {
  assert.equal(new Set(ADMIN_TABS.map((t) => t.slug)).size, ADMIN_TABS.length);
  for (const [i] of ADMIN_TABS.entries()) assert.equal(adminTabIndex(adminTabSlug(i)), i);
  assert.equal(adminTabIndex('audit'), 5);
  assert.equal(ADMIN_TABS[adminTabIndex('pricing')]?.label, 'Pricing');
});

it('opens the first tab without a tab parameter or with an unknown one', () => {
  assert.equal(adminTabIndex(null), 0);
  assert.equal(adminTabIndex('nope'), 0);
  assert.equal(adminTabSlug(99), 'user');
});
