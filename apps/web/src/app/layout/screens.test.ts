import assert from 'node:assert/strict';
import { it } from 'node:test';
import { mobileScreenFor } from './screens.ts';

it('names each mobile screen and gives detail screens a back arrow', () => {
  const cases: Array<[string, string, string | null, string]> = [
    ['/', 'Proxy Default', null, 'balance'],
    ['/shop', 'Proxy Default', null, 'balance'],
    ['/my', 'Proxy Default', null, 'balance'],
    ['/my/history', 'Proxy Default', null, 'balance'],
    ['/payments', 'Proxy Default', null, 'balance'],
    ['/shop/abc123', 'Proxy Details', '/shop', 'balance'],
    ['/my/lease-1', 'Proxy Details', '/my', 'balance'],
    ['/my/history-details/203.0.113.7', 'History Details', '/my/history', 'balance'],
    ['/add-funds', 'Add Funds', '/', 'balance'],
    ['/filter', 'Filter', '/shop', 'reset'],
    ['/filter/', 'Filter', '/shop', 'reset'],
    ['/confirm-purchase', 'Confirm Purchase', '/shop', 'balance'],
    ['/change-password', 'Change Password', '/', 'balance'],
  ];
  for (const [path, title, backTo, action] of cases) {
    assert.deepEqual(mobileScreenFor(path), { title, backTo, action }, path);
  }
});
