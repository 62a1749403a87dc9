import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readEnvConfig, readRoles } from './env.ts';

test('defaults and lists', () => {
  const c = readEnvConfig({
    OIDC_ISSUER: 'http://127.0.0.1:9000',
    OIDC_AUDIENCE: 'https://api.market.test',
    CORS_ORIGINS: 'http://127.0.0.1:5173, https://app.example',
    OIDC_ALGS: 'ES256,RS256',
  });
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 7301);
  assert.deepEqual(c.oidc.algorithms, ['ES256', 'RS256']);
  assert.equal(c.oidc.permissionsClaim, 'permissions');
  assert.deepEqual(c.corsOrigins, ['http://127.0.0.1:5173', 'https://app.example']);
  assert.equal(c.blockCacheMs, 1000);
  assert.equal(c.web, undefined);
  assert.deepEqual(c.settings.newAccountPermissions, [], 'a new account waits for review by default');
});

test('NEW_ACCOUNT_PERMISSIONS grants DEPOSIT at sign-up and refuses anything else', () => {
  const base = { OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_AUDIENCE: 'https://api.market.test' };
  assert.deepEqual(
    readEnvConfig({ ...base, NEW_ACCOUNT_PERMISSIONS: 'DEPOSIT' }).settings.newAccountPermissions,
    ['DEPOSIT'],
  );
  assert.throws(
    () => readEnvConfig({ ...base, NEW_ACCOUNT_PERMISSIONS: 'DEPOSIT,update:accounts' }),
    /NEW_ACCOUNT_PERMISSIONS: "update:accounts" is not one of DEPOSIT/,
  );
});

test('WEBHOOK_ALLOW_URLS takes exact origins only, none by default', () => {
  const base = { OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_AUDIENCE: 'https://api.market.test' };
  assert.deepEqual(readEnvConfig(base).settings.webhookAllowUrls, []);
  assert.deepEqual(
    readEnvConfig({ ...base, WEBHOOK_ALLOW_URLS: 'http://127.0.0.1:7308, https://hooks.example/' }).settings
      .webhookAllowUrls,
    ['http://127.0.0.1:7308', 'https://hooks.example/'],
  );
  for (const bad of ['http://127.0.0.1:7308/hooks', '127.0.0.1:7308', 'http://127.0.0.1:7308?x=1']) {
    assert.throws(
      () => readEnvConfig({ ...base, WEBHOOK_ALLOW_URLS: bad }),
      /WEBHOOK_ALLOW_URLS: ".*" is not an origin/,
      bad,
    );
  }
});

test('every bad value is named in one error', () => {
  assert.throws(
    () => readEnvConfig({ PORT: 'eighty', OIDC_ALGS: 'HS256,none', LOG_LEVEL: 'loud', WEB_PORT: '8081' }),
    (e: Error) =>
      [
        'OIDC_ISSUER is required',
        'OIDC_AUDIENCE is required',
        'PORT must be an integer',
        'OIDC_ALGS: "HS256"',
        'OIDC_ALGS: "none"',
        'LOG_LEVEL must be one of',
        'WEB_ROOT is required',
      ].every((s) => e.message.includes(s)),
  );
});

test("the web listener reads the operator's Terms and Privacy files (TERMS_FILE, PRIVACY_FILE)", () => {
  const base = {
    OIDC_ISSUER: 'http://127.0.0.1:9000',
    OIDC_AUDIENCE: 'a',
    WEB_PORT: '0',
    WEB_ROOT: 'dist',
    WEB_ENVIRONMENTS_FILE: 'envs.json',
  };
  const files: Record<string, string> = {
    'envs.json': '{"environments":[]}',
    'terms.md': '# Terms',
    'privacy.md': '# Privacy',
  };
  const read = (p: string) => {
    const text = files[p];
    if (text === undefined) throw new Error('ENOENT');
    return text;
  };
  const c = readEnvConfig({ ...base, TERMS_FILE: 'terms.md', PRIVACY_FILE: 'privacy.md' }, read);
  assert.deepEqual(c.web?.legal, { terms: '# Terms', privacy: '# Privacy' });
  assert.throws(
    () => readEnvConfig({ ...base, TERMS_FILE: 'gone.md' }, read),
    /TERMS_FILE gone\.md cannot be read/,
  );
});

test('the web listener reads its environments file', () => {
  const file = JSON.stringify({ environments: [] });
  const c = readEnvConfig(
    {
      OIDC_ISSUER: 'http://127.0.0.1:9000',
      OIDC_AUDIENCE: 'a',
      WEB_PORT: '0',
      WEB_ROOT: 'dist',
      WEB_ENVIRONMENTS_FILE: 'envs.json',
    },
    () => file,
  );
  assert.deepEqual(c.web, { host: '127.0.0.1', port: 0, root: 'dist', environments: [], legal: {} });
  assert.throws(
    () =>
      readEnvConfig(
        {
          OIDC_ISSUER: 'http://x',
          OIDC_AUDIENCE: 'a',
          WEB_PORT: '0',
          WEB_ROOT: 'dist',
          WEB_ENVIRONMENTS_FILE: 'f',
        },
        () => '{"environments":[{"name":1}]}',
      ),
    /WEB_ENVIRONMENTS_FILE f is not a valid environments file/,
  );
});

test('roles: both by default, one or both by --role, an unknown one refused', () => {
  assert.deepEqual(readRoles(['node', 'main.ts']), ['http', 'worker']);
  assert.deepEqual(readRoles(['--role=worker']), ['worker']);
  assert.deepEqual(readRoles(['--role=worker,http']), ['http', 'worker']);
  assert.throws(() => readRoles(['--role=cron']), /--role must be/);
  assert.throws(() => readRoles(['--role=http,cron']), /--role must be/);
});

test('the worker role needs no OIDC settings', () => {
  const c = readEnvConfig({ DATABASE_URL: 'postgres://db/x' }, undefined, ['worker']);
  assert.equal(c.databaseUrl, 'postgres://db/x');
  assert.throws(() => readEnvConfig({}, undefined, ['http']), /OIDC_ISSUER is required/);
});
