import { AppError, ZErrorBody, ZTxRecordsQuery, ZTxRecordsResponse } from '@pm/contracts';
import { getPrincipal } from '../../platform/auth.ts';
import type { ApiApp } from '../../platform/module.ts';
import type { LedgerService } from './ledger.service.ts';

/** `GET /txrecords`: the caller's ledger rows, newest first; staff may pass `uid` to read anyone's. */
export function registerLedgerRoutes(
  app: ApiApp,
  deps: { ledger: Pick<LedgerService, 'listTxRecords'> },
): void {
  app.get(
    '/txrecords',
    {
      config: { auth: 'user' },
      schema: {
        tags: ['payments'],
        querystring: ZTxRecordsQuery,
        response: { 200: ZTxRecordsResponse, 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody },
      },
    },
    async (req) => {
      const p = getPrincipal(req);
      const { uid, ...page } = req.query;
      if (uid !== undefined && !p.isStaff) {
        throw new AppError('FORBIDDEN', {
          message: `${p.userId} asked for txrecords of ${uid}`,
          userMessage: 'Staff permissions required',
        });
      }
      return deps.ledger.listTxRecords({ userId: uid ?? p.userId, ...page });
    },
  );
}
