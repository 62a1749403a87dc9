export * from './accounts.ts';
export * from './identity.ts';
export * from './network.ts';
