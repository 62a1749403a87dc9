import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { ensureUser, type IdentityHandle } from './index.ts';
import { ACCOUNT_SLOWDOWN, LIMITS } from './limits.ts';
import { type MailCatcher, passwordGrant, startIdentity, startMailCatcher } from './test-support.ts';

/** Password grant with an X-Forwarded-For header, as a proxy in front would pass it on. */
const grant = (idp: IdentityHandle, username: string, password: string, xff?: string) =>
  passwordGrant(idp.url, { username, password }, { forwardedFor: xff });

async function lastIp(db: TestDatabase, email: string): Promise<string | null | undefined> {
  const rows = await db.query<{ last_login_ip: string | null }>(
    'SELECT last_login_ip FROM users WHERE email = $1',
    [email],
  );
  return rows[0]?.last_login_ip;
}

describe('sign-in limits behind proxies and under parallel guesses', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  /** One proxy in front; the account slow-down is off so the IP limits are seen alone. */
  let oneHop: IdentityHandle;
  /** Two proxies in front, default limits. */
  let twoHops: IdentityHandle;

  before(async () => {
    db = await createTestDatabase('identity_signin_limits');
    mail = await startMailCatcher();
    oneHop = await startIdentity(db, mail.url, {
      trustProxyHops: 1,
      rateLimits: { account: { freeFailures: 1_000_000 } },
    });
    twoHops = await startIdentity(db, mail.url, { trustProxyHops: 2 });
    for (const email of ['spoof@example.com', 'parallel@example.com', 'victim@example.com']) {
      await ensureUser(db, { email, password: 'the right password', emailVerified: true });
    }
  });

  after(async () => {
    await oneHop?.close();
    await twoHops?.close();
    await mail?.close();
    await db?.drop();
  });

  test('a client-written X-Forwarded-For entry neither escapes the limit nor sets lastIp', async () => {
    // The proxy appends the address it saw (198.51.100.7); the client writes what is left of it.
    for (let i = 0; i < LIMITS.failsPerEmailIp.points; i++) {
      const r = await grant(oneHop, 'spoof@example.com', 'wrong guess', `203.0.113.${i}, 198.51.100.7`);
      assert.equal(r.status, 400, `guess ${i + 1}`);
    }
    const next = await grant(oneHop, 'spoof@example.com', 'wrong guess', '203.0.113.99, 198.51.100.7');
    assert.equal(next.status, 429, 'a fresh spoofed entry is the same client');
    assert.ok(Number(next.retryAfter) > 0, 'Retry-After says when');

    const ok = await grant(oneHop, 'spoof@example.com', 'the right password', '1.2.3.4, 198.51.100.8');
    assert.equal(ok.status, 200);
    assert.equal(await lastIp(db, 'spoof@example.com'), '198.51.100.8');
    // Two hops: the second entry from the right is the client (the right one is our outer proxy).
    const two = await grant(
      twoHops,
      'spoof@example.com',
      'the right password',
      '1.2.3.4, 192.0.2.44, 10.0.0.2',
    );
    assert.equal(two.status, 200);
    assert.equal(await lastIp(db, 'spoof@example.com'), '192.0.2.44');
  });

  test('40 parallel wrong passwords from one IP get at most 10 password checks', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => grant(oneHop, 'parallel@example.com', 'wrong guess', '198.51.100.20')),
    );
    // Every answer but 429 is a password check (400 wrong password); 429s never reach argon2.
    const checked = answers.filter((a) => a.status !== 429);
    assert.ok(
      checked.length <= LIMITS.failsPerEmailIp.points,
      `${checked.length} checks: ${answers.map((a) => a.status).join(',')}`,
    );
    assert.ok(checked.every((a) => a.status === 400));
    assert.equal(answers.length - checked.length, 40 - checked.length);
  });

  test('per-account slow-down: guesses from many addresses wait, the owner signs in from their own', async () => {
    const email = 'victim@example.com';
    const owner = '192.0.2.10';
    const first = await grant(twoHops, email, 'the right password', `${owner}, 10.0.0.2`);
    assert.equal(first.status, 200);
    for (let i = 0; i < ACCOUNT_SLOWDOWN.freeFailures; i++) {
      const r = await grant(twoHops, email, 'wrong guess', `198.18.0.${i}, 10.0.0.2`);
      assert.equal(r.status, 400, `free failure ${i + 1}`);
    }
    // A residential pool: every next guess comes from another address and still waits.
    for (let i = 0; i < 5; i++) {
      const r = await grant(twoHops, email, 'wrong guess', `198.18.1.${i}, 10.0.0.2`);
      assert.equal(r.status, 429, `pool guess ${i + 1}`);
      assert.equal(r.retryAfter, String(ACCOUNT_SLOWDOWN.baseDelayS));
    }
    // Not a lockout a stranger can trigger: the owner's address of the last sign-in gets through.
    const mine = await grant(twoHops, email, 'the right password', `${owner}, 10.0.0.2`);
    assert.equal(mine.status, 200);
    // The success reset the count: a new address may try again.
    const after = await grant(twoHops, email, 'wrong guess', '198.18.2.1, 10.0.0.2');
    assert.equal(after.status, 400);
  });
});
