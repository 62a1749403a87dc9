import { defineModule, type Platform } from '../../platform/module.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { registerAccountsRoutes } from './accounts.routes.ts';
import { createAccountService } from './accounts.service.ts';

/** Accounts: `GET|PUT /accounts/my` for customers, `GET|PATCH /accounts/{id}` for staff. */
export const accountsModule = defineModule({
  name: 'accounts',
  needs: ['ledger'],
  services: (platform: Platform, { ledger }: { ledger: Pick<LedgerService, 'move'> }) => ({
    accounts: createAccountService({
      db: platform.db.db,
      ledger,
      newAccountPermissions: platform.settings.newAccountPermissions ?? [],
    }),
  }),
  routes: registerAccountsRoutes,
});
