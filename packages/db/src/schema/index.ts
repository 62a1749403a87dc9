export * from './accounts.ts';
export * from './identity.ts';
export * from './network.ts';
export * from './pricing.ts';
