export * from './accounts.ts';
export * from './audit.ts';
export * from './identity.ts';
export * from './network.ts';
export * from './payments.ts';
export * from './payments-held.ts';
export * from './pricing.ts';
export * from './checks.ts';
