/**
 * Every feature module, in build order: a module may use the services of the modules before it
 * (`needs`), and `compose.ts` checks that it does. Add a feature by adding its module here.
 */
import { accountsModule } from './accounts/accounts.module.ts';
import { agentsModule } from './agents/agents.module.ts';
import { apiKeysModule } from './apikeys/apikeys.module.ts';
import { auditModule } from './audit/audit.module.ts';
import { authportModule } from './authport/authport.module.ts';
import { checksModule } from './checks/checks.module.ts';
import { healthModule } from './health/health.module.ts';
import { leasesModule } from './leases/leases.module.ts';
import { ledgerModule } from './ledger/ledger.module.ts';
import { paymentsModule } from './payments/payments.module.ts';
import { portsModule } from './ports/ports.module.ts';
import { pricingModule } from './pricing/pricing.module.ts';
import { probesModule } from './probes/probes.module.ts';
import { referralModule } from './referral/referral.module.ts';
import { salesModule } from './sales/sales.module.ts';
import { staticModule } from './static/static.module.ts';
import { webhooksModule } from './webhooks/webhooks.module.ts';

export const MODULES = [
  healthModule,
  ledgerModule,
  auditModule,
  salesModule,
  accountsModule,
  referralModule,
  paymentsModule,
  pricingModule,
  agentsModule,
  probesModule,
  leasesModule,
  staticModule,
  authportModule,
  checksModule,
  apiKeysModule,
  webhooksModule,
  portsModule,
] as const;

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

/** Every service the modules provide, by name (`services.ledger`, `services.leases`, …). */
export type Services = UnionToIntersection<ReturnType<(typeof MODULES)[number]['services']>>;
