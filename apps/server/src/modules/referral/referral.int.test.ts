import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS } from '@pm/contracts';
import { cents } from '@pm/money';
import { createPaymentsHarness, type PaymentsHarness } from '../../test/payments.ts';
import { callRoute } from '../../test/route.ts';

let h: PaymentsHarness;
before(async () => {
  // A 10% bonus on every payment, so bonus rounding is checked on the same credits.
  h = await createPaymentsHarness('referral', { bonusPct: 10 });
});
after(async () => {
  await h?.close();
});

const rows = (userId: string, type: string) =>
  h.db.query<{ amt_c: string; memo: string; idem_key: string }>(
    'SELECT amt_c, memo, idem_key FROM txrecords WHERE user_id = $1 AND type = $2 ORDER BY id',
    [userId, type],
  );
const amounts = async (userId: string, type: string) =>
  (await rows(userId, type)).map((r) => Number(r.amt_c));
const charge = (userId: string, amountC: number) =>
  h.services.payments.createCharge({ userId }, { amount: cents(amountC), type: 'ltc' });

describe('referral rewards and the bonus', () => {
  test('10% of the first load, 5% of later ones, each a referral record; the bonus is its own record, rounded half up', async () => {
    const referrer = await h.customer();
    const { userId } = await h.customer({ referredBy: referrer.refcode });
    const first = await charge(userId, 2000);
    h.chain.pay('ltc', first.address, first.amount, 2);
    await h.services.paymentWatcher.watchOnce();
    // $12.35 at $84.00: 0.14702381 LTC credits 1235 cents; 10% bonus is 123.5 -> 124.
    const second = await charge(userId, 1235);
    h.chain.pay('ltc', second.address, second.amount, 2);
    await h.services.paymentWatcher.watchOnce();

    assert.deepEqual(await amounts(userId, 'deposit'), [2000, 1235]);
    assert.deepEqual(await amounts(userId, 'bonus'), [200, 124]);
    assert.deepEqual(await amounts(referrer.userId, 'referral'), [200, 62]); // 10% of 2000; 5% of 1235 = 61.75 -> 62
    const [firstReward] = await rows(referrer.userId, 'referral');
    assert.match(firstReward?.memo ?? '', /10% of a \$20\.00 first load/);

    const info = await callRoute(h.app, ENDPOINTS.getReferralInfo, {
      headers: await h.auth(referrer.userId),
    });
    assert.equal(info.statusCode, 200, info.body);
    assert.equal(info.json().refcode, referrer.refcode);
    assert.equal(info.json().invitedCount, 1);
    assert.equal(info.json().rewardsC, 262);
    assert.match(info.json().inviteUrl, new RegExp(`/signup\\?ref=${referrer.refcode}$`));
  });

  test('two loads confirming in the same pass never both count as the first', async () => {
    for (let round = 0; round < 3; round++) {
      const referrer = await h.customer();
      const { userId } = await h.customer({ referredBy: referrer.refcode });
      const a = await charge(userId, 1000);
      const b = await h.services.payments.createCharge({ userId }, { amount: cents(1000), type: 'btc' });
      // One block confirms both; two watchers run at once, each chain credited in parallel.
      h.chain.pay('ltc', a.address, a.amount, 2);
      h.chain.pay('btc', b.address, b.amount, 1);
      await Promise.all([h.services.paymentWatcher.watchOnce(), h.services.paymentWatcher.watchOnce()]);
      const rewards = (await amounts(referrer.userId, 'referral')).sort((x, y) => x - y);
      assert.deepEqual(rewards, [50, 100], `round ${round}: one 10% and one 5%`);
      assert.equal(
        (await rows(referrer.userId, 'referral')).filter((r) => r.idem_key.startsWith('referral:first:'))
          .length,
        1,
      );
    }
  });

  test('no inviter, or an inviter code nobody holds: no reward, the load is still credited', async () => {
    const { userId } = await h.customer({ referredBy: 'NOBODY0000' });
    const c = await charge(userId, 500);
    h.chain.pay('ltc', c.address, c.amount, 2);
    await h.services.paymentWatcher.watchOnce();
    assert.deepEqual(await amounts(userId, 'deposit'), [500]);
    const total = await h.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM txrecords WHERE type = 'referral' AND memo LIKE '%$5.00%'",
    );
    assert.equal(Number(total[0]?.n), 0);
  });

  test('referral by pre-registration: no reward before the address is confirmed; the inviter counts from then on', async () => {
    // The identity host names the inviter (referred_by) only once the sign-up mail's link
    // confirmed the address; an attacker who signed up someone else's address never gets there.
    const inviter = await h.customer();
    const userId = 'pre-registered-user';
    const put = async (claims: Record<string, unknown>) => {
      const headers = {
        authorization: `Bearer ${await h.issuer.sign(userId, { email: 'p@example.test', ...claims })}`,
      };
      const res = await callRoute(h.app, ENDPOINTS.createMyAccount, { headers });
      assert.equal(res.statusCode, 200, res.body);
    };
    await put({});
    await h.db.query(`UPDATE accounts SET permissions = '{DEPOSIT}' WHERE user_id = $1`, [userId]);
    const first = await charge(userId, 2000);
    h.chain.pay('ltc', first.address, first.amount, 2);
    await h.services.paymentWatcher.watchOnce();
    assert.deepEqual(await amounts(userId, 'deposit'), [2000]);
    assert.deepEqual(await amounts(inviter.userId, 'referral'), [], 'nobody named, nothing paid');

    // Confirmed: the next token names the inviter and the account takes it on its next PUT.
    await put({ referred_by: inviter.refcode });
    const second = await charge(userId, 1000);
    h.chain.pay('ltc', second.address, second.amount, 2);
    await h.services.paymentWatcher.watchOnce();
    assert.deepEqual(await amounts(inviter.userId, 'referral'), [50], '5%: it is not the first load');

    // Once set, a referrer never changes, and nobody refers themselves.
    const other = await h.customer();
    await put({ referred_by: other.refcode });
    const [row] = await h.db.query<{ referred_by: string; refcode: string }>(
      'SELECT referred_by, refcode FROM accounts WHERE user_id = $1',
      [userId],
    );
    assert.equal(row?.referred_by, inviter.refcode);
    const selfId = 'self-referrer';
    const self = {
      authorization: `Bearer ${await h.issuer.sign(selfId, { email: 's@example.test', referral_code: 'SELFCODE01' })}`,
    };
    await callRoute(h.app, ENDPOINTS.createMyAccount, { headers: self });
    const selfAgain = {
      authorization: `Bearer ${await h.issuer.sign(selfId, { email: 's@example.test', referral_code: 'SELFCODE01', referred_by: 'SELFCODE01' })}`,
    };
    await callRoute(h.app, ENDPOINTS.createMyAccount, { headers: selfAgain });
    const [selfRow] = await h.db.query<{ referred_by: string | null }>(
      'SELECT referred_by FROM accounts WHERE user_id = $1',
      [selfId],
    );
    assert.equal(selfRow?.referred_by, null);
  });

  test('an account created from a token keeps the inviter claim and gets a refcode of its own', async () => {
    const inviter = await h.customer();
    const headers = {
      authorization: `Bearer ${await h.issuer.sign('invited-user', { email: 'i@example.test', referred_by: inviter.refcode })}`,
    };
    const put = await callRoute(h.app, ENDPOINTS.createMyAccount, { headers });
    assert.equal(put.statusCode, 200, put.body);
    assert.match(put.json().refcode, /^[0-9A-F]{10}$/);
    const row = await h.db.query<{ referred_by: string }>(
      'SELECT referred_by FROM accounts WHERE user_id = $1',
      ['invited-user'],
    );
    assert.equal(row[0]?.referred_by, inviter.refcode);
    // A token refcode another account already holds is replaced by a generated one.
    const dup = {
      authorization: `Bearer ${await h.issuer.sign('dup-code-user', { email: 'd@example.test', referral_code: inviter.refcode })}`,
    };
    const res = await callRoute(h.app, ENDPOINTS.createMyAccount, { headers: dup });
    assert.equal(res.statusCode, 200, res.body);
    assert.notEqual(res.json().refcode, inviter.refcode);
  });
});
