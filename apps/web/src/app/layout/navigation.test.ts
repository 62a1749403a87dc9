import assert from 'node:assert/strict';
import { it } from 'node:test';
import { activeTabFor } from './navigation.ts';

it('highlights the tab a path belongs to', () => {
  assert.equal(activeTabFor('/'), '/');
  assert.equal(activeTabFor('/shop'), '/');
  assert.equal(activeTabFor('/shop/x1'), '/');
  assert.equal(activeTabFor('/my'), '/my');
  assert.equal(activeTabFor('/my/history'), '/my');
  assert.equal(activeTabFor('/payments'), '/payments');
  assert.equal(activeTabFor('/download'), '/download');
  assert.equal(activeTabFor('/downloads'), false);
  assert.equal(activeTabFor('/referral'), false);
});
