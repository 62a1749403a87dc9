import assert from 'node:assert/strict';
import { test } from 'node:test';
import { socksExposureWarning } from './network.ts';

test('the devnet warns when its SOCKS ports leave loopback (its agents may reach loopback services)', () => {
  for (const host of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost'])
    assert.equal(socksExposureWarning(host), null, host);
  for (const host of ['0.0.0.0', '::', '192.168.1.5']) {
    assert.match(socksExposureWarning(host) ?? '', /SOCKS ports bound to .*loopback services/, host);
  }
});
