import {
  AppError,
  REFERRAL_FIRST_LOAD_PCT,
  REFERRAL_LATER_LOAD_PCT,
  type TReferralInfo,
} from '@pm/contracts';
import type { Tx } from '@pm/db';
import { type Cents, formatUsd } from '@pm/money';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';

/** What the referral service is built from. */
export interface ReferralServiceDeps {
  ledger: Pick<LedgerService, 'move' | 'totalsOfType'>;
  accounts: Pick<AccountService, 'getAccount' | 'findReferrerId' | 'countInvited'>;
  /** The invite link for a code: `{code}` is replaced (default: the identity host's sign-up page). */
  inviteUrlTemplate: string;
}

/** The referral service's functions (derived from the factory). */
export type ReferralService = ReturnType<typeof createReferralService>;

/** `pct` percent of `amountC`, rounded half up. */
const percentOf = (amountC: number, pct: number) => Math.floor((amountC * pct + 50) / 100) as Cents;

/** Referral rewards: 10% of a referred customer's first credited load, 5% of every later one. */
export function createReferralService(deps: ReferralServiceDeps) {
  return {
    /**
     * Rewards whoever invited `userId` for a load just credited in `tx` (the caller's ledger
     * `deposit` record for it must already be written, so the user's account row is locked by
     * this transaction). "First" is decided under that lock: a second load confirming at the same
     * moment waits for this transaction and then sees this deposit, so both can never be first;
     * the first reward's key (`referral:first:<user>`) makes a second one impossible even so.
     * Returns the reward in cents (0 when there is no referrer or nothing to pay).
     */
    async rewardLoad(input: { userId: string; loadC: Cents; loadKey: string }, tx: Tx): Promise<Cents> {
      if (input.loadC <= 0) return 0 as Cents;
      const referrerId = await deps.accounts.findReferrerId(input.userId, tx);
      if (!referrerId || referrerId === input.userId) return 0 as Cents;
      const deposits = await deps.ledger.totalsOfType(input.userId, 'deposit', tx);
      const isFirst = deposits.count <= 1;
      const pct = isFirst ? REFERRAL_FIRST_LOAD_PCT : REFERRAL_LATER_LOAD_PCT;
      const rewardC = percentOf(input.loadC, pct);
      if (rewardC <= 0) return 0 as Cents;
      await deps.ledger.move(
        {
          userId: referrerId,
          amountC: rewardC,
          type: 'referral',
          memo: `Referral reward: ${pct}% of a ${formatUsd(input.loadC)} ${isFirst ? 'first ' : ''}load`,
          idemKey: isFirst ? `referral:first:${input.userId}` : `referral:${input.loadKey}`,
        },
        tx,
      );
      return rewardC;
    },
    /** The caller's code, invite link, how many signed up with it and what it has earned. */
    async getReferralInfo(userId: string): Promise<TReferralInfo> {
      // getAccount answers NOT_FOUND for a user without an account.
      const { refcode } = await deps.accounts.getAccount(userId);
      if (refcode === null) throw new AppError('INTERNAL', { message: `account ${userId} has no refcode` });
      const [invitedCount, rewards] = await Promise.all([
        deps.accounts.countInvited(refcode),
        deps.ledger.totalsOfType(userId, 'referral'),
      ]);
      return {
        refcode,
        inviteUrl: deps.inviteUrlTemplate.replace('{code}', encodeURIComponent(refcode)),
        invitedCount,
        rewardsC: rewards.sumC,
        firstLoadPct: REFERRAL_FIRST_LOAD_PCT,
        laterLoadPct: REFERRAL_LATER_LOAD_PCT,
      };
    },
  };
}
