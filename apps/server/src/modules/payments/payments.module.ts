import type { CurrencyId } from '@pm/contracts';
import { defineModule, type Platform } from '../../platform/module.ts';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { ReferralService } from '../referral/referral.service.ts';
import { BUDGET_CHAIN, createRequestBudget, type RequestBudgetHandle } from './payments.budget.ts';
import { createChainClients } from './payments.chains.ts';
import { DEFAULT_PAYMENTS_SETTINGS } from './payments.config.ts';
import { watchPaymentsJob } from './payments.jobs.ts';
import { registerAddressGapMetric, registerWatcherMetrics } from './payments.metrics.ts';
import { createRateSource } from './payments.rates.ts';
import { createPaymentsRepository } from './payments.repository.ts';
import { registerPaymentsRoutes } from './payments.routes.ts';
import { createPaymentService } from './payments.service.ts';
import { createPaymentsStaffRepository } from './payments.staff.repository.ts';
import { createPaymentsStaffService } from './payments.staff.service.ts';
import { createPaymentWatcher } from './payments.watcher.ts';

interface Needs {
  ledger: Pick<LedgerService, 'move'>;
  audit: Pick<AuditService, 'record'>;
  accounts: Pick<AccountService, 'getAccount'>;
  referral: Pick<ReferralService, 'rewardLoad'>;
}

/**
 * Crypto top-ups: charges on watch-only addresses, the chain watcher (job `payments.watch`) that
 * credits each confirmed output once through the ledger, rates, and the staff deep-check.
 * Without `settings.payments` the routes exist but no currency can be charged.
 */
export const paymentsModule = defineModule({
  name: 'payments',
  needs: ['ledger', 'audit', 'accounts', 'referral'],
  services: (platform: Platform, { ledger, audit, accounts, referral }: Needs) => {
    const settings = platform.settings.payments;
    const f = settings?.fetch ?? fetch;
    const repo = createPaymentsRepository(platform.db.db);
    const staffRepo = createPaymentsStaffRepository(platform.db.db);
    const log = platform.log.child({ component: 'payments' });
    const budgets: Partial<Record<CurrencyId, RequestBudgetHandle>> = {};
    const clients = settings
      ? createChainClients(
          settings,
          (currency) => {
            budgets[currency] = createRequestBudget(
              settings.budgets[BUDGET_CHAIN[currency]],
              f,
              platform.now,
            );
            return budgets[currency].fetch;
          },
          (detail) => log.warn(detail, 'malformed explorer entry skipped'),
        )
      : {};
    const rates = createRateSource({
      settings: (settings ?? DEFAULT_PAYMENTS_SETTINGS).rates,
      fetch: f,
      now: platform.now,
    });
    const watcher = createPaymentWatcher({
      db: platform.db.db,
      repo,
      clients,
      budgets,
      rates,
      ledger,
      referral,
      settings: settings ?? DEFAULT_PAYMENTS_SETTINGS,
      now: platform.now,
      log,
    });
    registerWatcherMetrics(platform.metrics, repo, Object.keys(clients) as CurrencyId[], platform.now);
    registerAddressGapMetric(platform.metrics, staffRepo, settings?.xpubs ?? {});
    const payments = createPaymentService({
      db: platform.db.db,
      repo,
      staffRepo,
      accounts,
      audit,
      rates,
      clients,
      watcher,
      settings,
      now: platform.now,
    });
    const paymentsStaff = createPaymentsStaffService({
      db: platform.db.db,
      repo: staffRepo,
      ledger,
      audit,
      now: platform.now,
    });
    return { payments, paymentWatcher: watcher, paymentsStaff };
  },
  routes: registerPaymentsRoutes,
  jobs: [watchPaymentsJob],
});
