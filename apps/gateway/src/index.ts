export { type GatewayConfig, type GatewayHandle, startGateway } from './gateway.ts';
export { type GatewayNode, type GatewayNodeConfig, socksPortsOf, startGatewayNode } from './node.ts';
export type { AgentDialer, AgentRegistry, LeaseDirectory, LeaseEntry, LeaseMeter } from './policy/types.ts';
export {
  checkPortPlan,
  DEFAULT_PORTS,
  ephemeralWarning,
  type PortPlan,
  readEphemeralRange,
} from './port-plan.ts';
export { type ProbeRequestWorker, startProbeRequestWorker } from './presence/probe-requests.ts';
export { type ControlPlane, type ControlPlaneOptions, startControlPlane } from './store/control-plane.ts';
