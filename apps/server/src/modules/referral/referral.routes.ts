import { ZErrorBody, ZReferralInfo } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { ReferralService } from './referral.service.ts';

/** `GET /referral`: the caller's referral code, invite link and earnings. */
export function registerReferralRoutes(
  app: ApiApp,
  deps: { referral: Pick<ReferralService, 'getReferralInfo'> },
) {
  app.get(
    '/referral',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['payments'],
        response: { 200: ZReferralInfo, 401: ZErrorBody, 403: ZErrorBody, 404: ZErrorBody },
      },
    },
    async (req) => deps.referral.getReferralInfo(getPrincipal(req).userId),
  );
}
