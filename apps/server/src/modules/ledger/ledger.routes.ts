import { AppError, ENDPOINTS } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import { registerEndpoint } from '../../platform/endpoint.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { LedgerService } from './ledger.service.ts';

/** `GET /txrecords`: the caller's ledger rows, newest first; staff may pass `uid` to read anyone's. */
export function registerLedgerRoutes(
  app: ApiApp,
  deps: { ledger: Pick<LedgerService, 'listTxRecords'> },
): void {
  registerEndpoint(app, ENDPOINTS.listTxRecords, {
    handler: async (req, { query }) => {
      const p = getPrincipal(req);
      const { uid, ...page } = query;
      if (uid !== undefined && !p.isStaff) {
        throw new AppError('FORBIDDEN', {
          message: `${p.userId} asked for txrecords of ${uid}`,
          userMessage: 'Staff permissions required',
        });
      }
      return deps.ledger.listTxRecords({ userId: uid ?? p.userId, ...page });
    },
  });
}
