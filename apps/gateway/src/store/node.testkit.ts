/** A gateway node for integration tests: its control plane on the test database and its gateway on loopback. */
import type { DbHandle } from '@pm/db';
import { type GatewayConfig, type GatewayHandle, startGateway } from '../gateway.ts';
import type { GeoLookup } from '../geo/geo.ts';
import { type ControlPlane, startControlPlane } from './control-plane.ts';

export interface TestNode {
  plane: ControlPlane;
  gateway: GatewayHandle;
}

/**
 * Starts node `id` (public host `<id>.gw.test`, agents' reported IPs trusted, fast meter flushes).
 * The gateway serves the plane's leases, or with `served` its leases and package ports; `gateway`
 * overrides its ports and the like.
 */
export async function startTestNode(
  db: DbHandle,
  id: string,
  o: {
    geo: GeoLookup;
    tls: { cert: string; key: string };
    served?: boolean;
    gateway?: Partial<GatewayConfig>;
    /** The control plane's clock: a test moves it past a lease's end instead of waiting. */
    now?: () => number;
  },
): Promise<TestNode> {
  const plane = await startControlPlane({
    db,
    nodeId: id,
    node: { publicHost: `${id}.gw.test`, publicIp: '127.0.0.1', socksBasePort: 10000 },
    geo: o.geo,
    reverseDns: false,
    flushMs: 500,
    now: o.now,
  });
  const gateway = await startGateway({
    nodeId: id,
    host: '127.0.0.1',
    tunnelPort: 0,
    socksPorts: [0],
    tls: o.tls,
    directory: o.served ? plane.served : plane.directory,
    meter: plane.meter,
    registry: plane.registry,
    handshakeTimeoutMs: 5000,
    trustAgentIp: true,
    meterFlushMs: 200,
    ...o.gateway,
  });
  return { plane, gateway };
}
