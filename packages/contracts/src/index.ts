export * from './accounts.ts';
export * from './agents.ts';
export * from './common.ts';
export * from './environment.ts';
export * from './errors.ts';
export * from './http.ts';
export * from './leases.ts';
export * from './permissions.ts';
