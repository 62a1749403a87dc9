import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { ensureUser, type IdentityHandle } from './index.ts';
import { ACCOUNT_SLOWDOWN, LIMITS } from './limits.ts';
import { type MailCatcher, passwordGrant, startIdentity, startMailCatcher } from './test-support.ts';

/** Password grant from `ip` (one trusted proxy in front passes it on). */
async function grant(idp: IdentityHandle, username: string, password: string, ip: string): Promise<number> {
  return (await passwordGrant(idp.url, { username, password }, { forwardedFor: ip })).status;
}

describe('two identity processes on one database spend one budget', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let a: IdentityHandle;
  let b: IdentityHandle;

  before(async () => {
    db = await createTestDatabase('identity_shared_limits');
    mail = await startMailCatcher();
    const noSlowdown = { trustProxyHops: 1, rateLimits: { account: { freeFailures: 1_000_000 } } };
    a = await startIdentity(db, mail.url, noSlowdown);
    b = await startIdentity(db, mail.url, noSlowdown);
    for (const email of ['pair@example.com', 'par@example.com']) {
      await ensureUser(db, { email, password: 'the right password', emailVerified: true });
    }
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await mail?.close();
    await db?.drop();
  });

  test('failures alternating between the two hosts hit the (email, IP) limit once', async () => {
    for (let i = 0; i < LIMITS.failsPerEmailIp.points; i++) {
      assert.equal(
        await grant(i % 2 ? a : b, 'pair@example.com', 'wrong', '198.51.100.1'),
        400,
        `guess ${i + 1}`,
      );
    }
    assert.equal(await grant(a, 'pair@example.com', 'wrong', '198.51.100.1'), 429);
    assert.equal(await grant(b, 'pair@example.com', 'the right password', '198.51.100.1'), 429);
  });

  test('40 parallel guesses split over both hosts get at most 10 password checks', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => grant(i % 2 ? a : b, 'par@example.com', 'wrong', '198.51.100.2')),
    );
    const checked = answers.filter((s) => s !== 429);
    assert.ok(checked.length <= LIMITS.failsPerEmailIp.points, answers.join(','));
    assert.ok(checked.every((s) => s === 400));
  });
});

describe('the account slow-down is shared by two identity processes', () => {
  let db: TestDatabase;
  let mail: MailCatcher;
  let a: IdentityHandle;
  let b: IdentityHandle;

  before(async () => {
    db = await createTestDatabase('identity_shared_slowdown');
    mail = await startMailCatcher();
    a = await startIdentity(db, mail.url, { trustProxyHops: 1 });
    b = await startIdentity(db, mail.url, { trustProxyHops: 1 });
    await ensureUser(db, { email: 'slow@example.com', password: 'the right password', emailVerified: true });
  });

  after(async () => {
    await a?.close();
    await b?.close();
    await mail?.close();
    await db?.drop();
  });

  test('free failures on host A, the next guess on host B waits', async () => {
    for (let i = 0; i < ACCOUNT_SLOWDOWN.freeFailures; i++) {
      assert.equal(
        await grant(a, 'slow@example.com', 'wrong', `198.18.0.${i}`),
        400,
        `free failure ${i + 1}`,
      );
    }
    assert.equal(await grant(b, 'slow@example.com', 'wrong', '198.18.1.1'), 429);
    assert.equal(await grant(a, 'slow@example.com', 'wrong', '198.18.1.2'), 429);
  });
});
