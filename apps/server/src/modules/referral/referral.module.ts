import { defineModule, type Platform } from '../../platform/module.ts';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { registerReferralRoutes } from './referral.routes.ts';
import { createReferralService } from './referral.service.ts';

/**
 * Referral rewards (10% of a referred customer's first load, 5% of later ones, as `referral`
 * ledger records) and `GET /referral`. The payments module calls `rewardLoad` in the transaction
 * that credits a load.
 */
export const referralModule = defineModule({
  name: 'referral',
  needs: ['ledger', 'accounts'],
  services: (
    platform: Platform,
    {
      ledger,
      accounts,
    }: {
      ledger: Pick<LedgerService, 'move' | 'totalsOfType'>;
      accounts: Pick<AccountService, 'getAccount' | 'findReferrerId' | 'countInvited'>;
    },
  ) => ({
    referral: createReferralService({
      ledger,
      accounts,
      inviteUrlTemplate: platform.settings.referralInviteUrl ?? '/signup?ref={code}',
    }),
  }),
  routes: registerReferralRoutes,
});
