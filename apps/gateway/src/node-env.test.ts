import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readNodeEnv, readNodeExposure } from './node-env.ts';

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

test('the whole environment is checked at once, each problem naming its variable', () => {
  const good = {
    DATABASE_URL: 'postgres://gw@db.internal/market',
    GATEWAY_TLS_CERT: '/etc/pm/gw.pem',
    GATEWAY_TLS_KEY: '/etc/pm/gw.key',
    GATEWAY_PUBLIC_IP: '81.2.69.160',
  };
  const ok = readNodeEnv(good);
  assert.ok(ok.ok);
  assert.deepEqual(
    [ok.value.nodeId, ok.value.host, ok.value.tunnelPort, ok.value.socksBasePort, ok.value.metricsPort],
    ['gw-1', '0.0.0.0', 7000, 0, undefined],
  );
  assert.equal(ok.value.logLevel, 'info');
  const bad = readNodeEnv({
    ...good,
    DATABASE_URL: 'mysql://root:hunter2@db/x',
    GATEWAY_TUNNEL_PORT: '70000',
    GATEWAY_METRICS_PORT: 'nine',
    GATEWAY_GEO: 'maxmind',
    GATEWAY_PROBE_URL: 'https://checkip.amazonaws.com/',
    GATEWAY_NODE_ID: 'gw 1',
    LOG_LEVEL: 'loud',
    GATEWAY_PUBLIC_IP: '',
  });
  assert.ok(!bad.ok);
  const text = bad.problems.join('\n');
  for (const name of [
    'DATABASE_URL must be a postgres:// URL',
    'GATEWAY_TUNNEL_PORT must be a port',
    'GATEWAY_METRICS_PORT must be a port',
    'GATEWAY_GEO must be dbip or off',
    'GATEWAY_PROBE_URL must be a plain http:// URL',
    'GATEWAY_NODE_ID must be',
    'LOG_LEVEL must be one of',
    'GATEWAY_PUBLIC_IP is required',
  ])
    assert.match(text, new RegExp(name.replace(/[/.:]/g, '\\$&')), name);
  assert.doesNotMatch(text, /hunter2/, 'a password in DATABASE_URL is not echoed');
  assert.equal(bad.problems.length, 8);
});
