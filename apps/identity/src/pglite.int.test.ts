import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDb, type DbHandle, migrateDb } from '@pm/db';
import * as oidc from 'openid-client';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  Browser,
  codeFlowSignIn,
  discoverWebClient,
  type MailCatcher,
  passwordGrant,
  startIdentity,
  startMailCatcher,
} from './test-support.ts';

// The embedded default (`npm start` without DATABASE_URL) runs on PGlite: same adapter, same SQL.
describe('identity on PGlite', () => {
  let dir: string;
  let db: DbHandle;
  let mail: MailCatcher;
  let idp: IdentityHandle;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'identity-pglite-'));
    db = await createDb({ dataDir: dir });
    await migrateDb(db);
    mail = await startMailCatcher();
    idp = await startIdentity(db, mail.url);
  });

  after(async () => {
    await idp?.close();
    await mail?.close();
    await db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('code flow, rotation and reuse detection, password grant', async () => {
    assert.equal(db.kind, 'pglite');
    await ensureUser(db, { email: 'pg@example.com', password: 'pglite password' });
    const config = await discoverWebClient(idp.url);
    const tokens = await codeFlowSignIn(config, new Browser(idp.url), {
      email: 'pg@example.com',
      password: 'pglite password',
    });
    const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    assert.ok(next.refresh_token && next.refresh_token !== tokens.refresh_token);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token!));
    await assert.rejects(oidc.refreshTokenGrant(config, next.refresh_token!));
    const pw = await passwordGrant(idp.url, { username: 'pg@example.com', password: 'pglite password' });
    assert.equal(pw.status, 200);
  });
});
