import { defineModule, type Platform } from '../../platform/module.ts';
import { createSaleKeyService } from './sales.service.ts';

/**
 * The sale kernel (`saleKeys`): the `Idempotency-Key` records of every sale (`sale_requests`), the
 * whole request's fingerprint compared on a retry, and in-memory turns for sales of one row. The
 * lease sale path, renewals and port packages' purchase, reactivation and refund all go through it.
 */
export const salesModule = defineModule({
  name: 'sales',
  needs: [],
  services: (platform: Platform) => ({
    saleKeys: createSaleKeyService({ db: platform.db.db }),
  }),
});
