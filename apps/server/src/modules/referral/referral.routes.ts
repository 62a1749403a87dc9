import { ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { ReferralService } from './referral.service.ts';

/** `GET /referral`: the caller's referral code, invite link and earnings. */
export function registerReferralRoutes(
  app: ApiApp,
  deps: { referral: Pick<ReferralService, 'getReferralInfo'> },
) {
  registerEndpoint(app, ENDPOINTS.getReferralInfo, {
    handler: async (req) => deps.referral.getReferralInfo(getPrincipal(req).userId),
  });
}
