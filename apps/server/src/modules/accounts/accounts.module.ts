import { defineModule, type Platform } from '../../platform/module.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { registerAccountsRoutes } from './accounts.routes.ts';
import { createAccountService } from './accounts.service.ts';

/** Accounts: `GET|PUT /accounts/my` for customers, `GET|PATCH /accounts/{id}` for staff. */
export const accountsModule = defineModule({
  name: 'accounts',
  needs: ['ledger', 'audit'],
  services: (
    platform: Platform,
    { ledger, audit }: { ledger: Pick<LedgerService, 'move'>; audit: Pick<AuditService, 'record'> },
  ) => ({
    accounts: createAccountService({
      db: platform.db.db,
      ledger,
      audit,
      newAccountPermissions: platform.settings.newAccountPermissions ?? [],
    }),
  }),
  routes: registerAccountsRoutes,
});
