import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../test/app.ts';
import { defineModule } from './module.ts';

/** A public route limited per client IP (no principal), answering the IP it saw. */
const echoModule = defineModule({
  name: 'echo-ip',
  needs: [],
  services: () => ({}),
  routes: (app) => {
    app.get(
      '/echo-ip',
      { config: { auth: 'public', rateLimit: { max: 3, timeWindow: 60_000 } } },
      async (req) => ({ ip: req.ip }),
    );
  },
});

describe('client IP behind proxies (TRUST_PROXY_HOPS) for the per-IP rate limits', () => {
  let oneHop: TestApp;
  let none: TestApp;

  before(async () => {
    oneHop = await createTestApp('client_ip_hops', {
      payments: false,
      modules: [echoModule],
      trustProxyHops: 1,
    });
    none = await createTestApp('client_ip_none', { payments: false, modules: [echoModule] });
  });
  after(async () => {
    await oneHop?.close();
    await none?.close();
  });

  // raw path: a throwaway route this test registers to echo the client IP it saw
  const call = (t: TestApp, xff: string, remoteAddress = '10.0.0.2') =>
    t.app.inject({ method: 'GET', url: '/echo-ip', headers: { 'x-forwarded-for': xff }, remoteAddress });

  test('one hop: the rightmost X-Forwarded-For entry is the client; spoofed entries left of it change nothing', async () => {
    const first = await call(oneHop, '203.0.113.1, 198.51.100.7');
    assert.equal(first.json().ip, '198.51.100.7');
    for (let i = 2; i <= 3; i++)
      assert.equal((await call(oneHop, `203.0.113.${i}, 198.51.100.7`)).statusCode, 200);
    const fourth = await call(oneHop, '203.0.113.4, 198.51.100.7');
    assert.equal(fourth.statusCode, 429, 'a fresh spoofed entry is still the same client');
    // Another client behind the same proxy has its own budget.
    assert.equal((await call(oneHop, '198.51.100.8')).statusCode, 200);
  });

  test('no hops configured (the default): X-Forwarded-For is ignored, the peer address counts', async () => {
    const res = await call(none, '203.0.113.9', '10.0.0.3');
    assert.equal(res.json().ip, '10.0.0.3');
  });
});
