export { type AgentConfig, type AgentHandle, startAgent } from './agent.ts';
export { createBlockList, type DestinationPolicy, isAddressAllowed } from './policy.ts';
