import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readNodeExposure } from './node-env.ts';

const problemsOf = (env: Record<string, string>) => {
  const r = readNodeExposure(env);
  return r.ok ? [] : r.problems;
};

test('a production node needs its public IP and takes no devnet setting', () => {
  assert.deepEqual(readNodeExposure({ GATEWAY_PUBLIC_IP: '81.2.69.160' }), {
    ok: true,
    value: {
      publicIp: '81.2.69.160',
      publicHost: '81.2.69.160',
      metricsHost: '127.0.0.1',
      metricsToken: undefined,
    },
  });
  assert.match(problemsOf({}).join(), /GATEWAY_PUBLIC_IP is required/);
  for (const bad of ['127.0.0.1', '::1', '0.0.0.0', 'gw.example.net'])
    assert.match(problemsOf({ GATEWAY_PUBLIC_IP: bad }).join(), /GATEWAY_PUBLIC_IP must be/, bad);
  for (const value of ['1', 'true', '0'])
    assert.match(
      problemsOf({ GATEWAY_PUBLIC_IP: '81.2.69.160', GATEWAY_TRUST_AGENT_IP: value }).join(),
      /GATEWAY_TRUST_AGENT_IP is a devnet-only setting/,
    );
});

test('metrics stay on loopback unless a bearer token guards them', () => {
  const base = { GATEWAY_PUBLIC_IP: '81.2.69.160' };
  assert.match(problemsOf({ ...base, GATEWAY_METRICS_HOST: '0.0.0.0' }).join(), /set GATEWAY_METRICS_TOKEN/);
  const r = readNodeExposure({ ...base, GATEWAY_METRICS_HOST: '10.0.0.2', GATEWAY_METRICS_TOKEN: 't0k' });
  assert.ok(r.ok && r.value.metricsHost === '10.0.0.2' && r.value.metricsToken === 't0k');
});
