/**
 * Staff powers on the identity host (issue 30 items 11-13, issue 23 hole 5): explicit and
 * idempotent block, reset links that die on a block or a staff-set password, the stronger
 * permission for staff accounts, the mail to the user, the reset-link endpoint, the audit rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZErrorBody } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { ensureUser, type IdentityHandle } from './index.ts';
import {
  linkIn,
  type MailCatcher,
  outsideTotp,
  passwordGrant,
  startIdentity,
  startMailCatcher,
  TEST_TOTP_SECRET,
} from './test-support.ts';

const STAFF = ['read:users', 'update:accounts'];
let db: TestDatabase;
let mail: MailCatcher;
let idp: IdentityHandle;
let staffId: string;
let staffToken: string;
let superToken: string;

const tokenOf = async (username: string, password: string) =>
  String(
    (await passwordGrant(idp.url, { username, password, otp: await outsideTotp(TEST_TOTP_SECRET).next() }))
      .body.access_token,
  );
const call = (path: string, body: unknown, token = staffToken) =>
  fetch(`${idp.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
const block = (email: string, extra: Record<string, unknown> = {}, token = staffToken) =>
  call('/administator/user/block/', { email, ...extra }, token);
const auditOf = (userId: string) =>
  db.query<{ actor_id: string; action: string; before: unknown; after: unknown }>(
    'SELECT actor_id, action, before, after FROM audit_log WHERE target_id = $1 ORDER BY id',
    [userId],
  );
/** Asks for a reset mail the way the user does and returns its link. */
async function resetLink(email: string): Promise<string> {
  const seen = mail.mails.length;
  const res = await fetch(`${idp.url}/dbconnections/change_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  assert.equal(res.status, 200);
  return linkIn(await mail.waitFor(email, 'Reset your', seen), '/reset-password');
}
const linkWorks = async (link: string) => !/invalid or has expired/.test(await (await fetch(link)).text());

before(async () => {
  db = await createTestDatabase('identity_staff');
  mail = await startMailCatcher();
  idp = await startIdentity(db, mail.url);
  staffId = (
    await ensureUser(db, {
      email: 'staff@example.com',
      password: 'staff password',
      permissions: STAFF,
      totpSecret: TEST_TOTP_SECRET,
    })
  ).id;
  await ensureUser(db, {
    email: 'super@example.com',
    password: 'super password',
    permissions: [...STAFF, 'update:staff'],
    totpSecret: TEST_TOTP_SECRET,
  });
  staffToken = await tokenOf('staff@example.com', 'staff password');
  superToken = await tokenOf('super@example.com', 'super password');
});
after(async () => {
  await idp?.close();
  await mail?.close();
  await db?.drop();
});

describe('block with an explicit intent (issue 30 item 12)', () => {
  test('a retried block stays blocked, a retried unblock stays unblocked; one audit row per change', async () => {
    const u = await ensureUser(db, { email: 'retry@example.com', password: 'retry password' });
    for (let i = 0; i < 2; i++) {
      const res = await block('retry@example.com', { blocked: true });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { blocked: true, email: 'retry@example.com' });
    }
    for (let i = 0; i < 2; i++) {
      const res = await block('retry@example.com', { blocked: false });
      assert.deepEqual(await res.json(), { blocked: false, email: 'retry@example.com' });
    }
    assert.deepEqual(await auditOf(u.id), [
      { actor_id: staffId, action: 'user.block', before: { blocked: false }, after: { blocked: true } },
      { actor_id: staffId, action: 'user.unblock', before: { blocked: true }, after: { blocked: false } },
    ]);
    const bad = await block('retry@example.com', { blocked: 'yes' });
    assert.equal(bad.status, 400);
  });

  test('without the field it still toggles (rules §7 client), and is audited', async () => {
    const u = await ensureUser(db, { email: 'toggle@example.com', password: 'toggle password' });
    assert.deepEqual(await (await block('toggle@example.com')).json(), {
      blocked: true,
      email: 'toggle@example.com',
    });
    assert.deepEqual(await (await block('toggle@example.com')).json(), {
      blocked: false,
      email: 'toggle@example.com',
    });
    assert.deepEqual(
      (await auditOf(u.id)).map((r) => r.action),
      ['user.block', 'user.unblock'],
    );
  });

  test('a reset link dies with a block (issue 30 item 13)', async () => {
    await ensureUser(db, { email: 'blockreset@example.com', password: 'block reset pw' });
    const link = await resetLink('blockreset@example.com');
    assert.equal(await linkWorks(link), true);
    await block('blockreset@example.com', { blocked: true });
    await block('blockreset@example.com', { blocked: false });
    assert.equal(await linkWorks(link), false, 'the link mailed before the block must not work after it');
  });

  test('blocking a staff account needs update:staff', async () => {
    await ensureUser(db, { email: 'colleague@example.com', password: 'colleague pw', permissions: STAFF });
    const res = await block('colleague@example.com', { blocked: true });
    assert.equal(res.status, 403);
    assert.match(ZErrorBody.parse(await res.json()).message, /update:staff/);
    assert.equal((await block('colleague@example.com', { blocked: true }, superToken)).status, 200);
    await block('colleague@example.com', { blocked: false }, superToken);
  });
});

describe('staff-set passwords (issue 30 items 11, 13)', () => {
  test("without update:staff a staff member cannot set another staff member's password", async () => {
    await ensureUser(db, { email: 'victim@example.com', password: 'victim password', permissions: STAFF });
    const res = await call('/administator/user/password/change', {
      email: 'victim@example.com',
      password: 'taken over 123',
    });
    assert.equal(res.status, 403);
    assert.match(ZErrorBody.parse(await res.json()).message, /update:staff/);
    assert.equal(
      (await passwordGrant(idp.url, { username: 'victim@example.com', password: 'taken over 123' })).status,
      400,
    );
    const allowed = await call(
      '/administator/user/password/change',
      { email: 'victim@example.com', password: 'reset by super 1' },
      superToken,
    );
    assert.equal(allowed.status, 200);
  });

  test('a staff-set password mails the user, kills older reset links and is audited', async () => {
    const u = await ensureUser(db, { email: 'dora@example.com', password: 'dora password' });
    const link = await resetLink('dora@example.com');
    const seen = mail.mails.length;
    const res = await call('/administator/user/password/change', {
      email: 'dora@example.com',
      password: 'set by staff 1',
      reason: 'ticket 77',
    });
    assert.equal(res.status, 200);
    const notice = await mail.waitFor('dora@example.com', 'password was changed', seen);
    assert.doesNotMatch(notice.text, /set by staff 1/, 'the mail never carries the password');
    assert.equal(await linkWorks(link), false, 'the older reset link must not undo the staff change');
    const rows = await db.query<{ actor_id: string; action: string; reason: string | null }>(
      'SELECT actor_id, action, reason FROM audit_log WHERE target_id = $1',
      [u.id],
    );
    assert.deepEqual(rows, [{ actor_id: staffId, action: 'user.password', reason: 'ticket 77' }]);
  });

  test('POST /administator/user/password/reset-link mails the user a working link, audited', async () => {
    const u = await ensureUser(db, { email: 'erin@example.com', password: 'erin password' });
    const seen = mail.mails.length;
    const res = await call('/administator/user/password/reset-link', { email: 'erin@example.com' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, email: 'erin@example.com' });
    const link = linkIn(await mail.waitFor('erin@example.com', 'Reset your', seen), '/reset-password');
    assert.equal(await linkWorks(link), true);
    assert.deepEqual(
      (await auditOf(u.id)).map((r) => [r.actor_id, r.action]),
      [[staffId, 'user.resetLink']],
    );
    const customer = await ensureUser(db, { email: 'nosy@example.com', password: 'nosy password' });
    assert.ok(customer.id);
    const forbidden = await call(
      '/administator/user/password/reset-link',
      { email: 'erin@example.com' },
      await tokenOf('nosy@example.com', 'nosy password'),
    );
    assert.equal(forbidden.status, 403);
  });
});
