export { type AgentConfig, type AgentHandle, startAgent } from './agent.ts';
export {
  createEgressGuard,
  DEFAULT_REFUSED_PORTS,
  type DestinationPolicy,
  type EgressGuard,
  type Refusal,
} from './policy.ts';
export { IPV4_EMBEDDINGS, IPV4_SPECIAL, IPV6_SPECIAL, type SpecialRange } from './ranges.ts';
