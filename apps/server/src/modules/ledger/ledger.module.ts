import { defineModule } from '../../platform/module.ts';
import { registerLedgerRoutes } from './ledger.routes.ts';
import { createLedgerService } from './ledger.service.ts';

/**
 * The ledger, the one way money moves (`ledger.move`), and `GET /txrecords`. The pattern every
 * module copies: routes -> service -> repository, services built from narrow dependencies.
 */
export const ledgerModule = defineModule({
  name: 'ledger',
  needs: [],
  services: (platform) => ({ ledger: createLedgerService({ db: platform.db.db }) }),
  routes: registerLedgerRoutes,
});
