/** The devnet's stand-ins for the chains and the rates source (`@pm/devnet/chain`). */
export * from './simulator.ts';
export * from './ticker.ts';
export * from './xpubs.ts';
