import type { DbHandle } from '@pm/db';
import type { GeoLookup } from '../geo/geo.ts';
import { createPgLeaseMeter, type PgLeaseMeter } from '../metering/lease-meter.ts';
import type { LeaseDirectory } from '../policy/types.ts';
import { createPgAgentRegistry, type GatewayNodeInfo, type PgAgentRegistry } from './agent-registry.ts';
import { createPgLeaseDirectory, type PgLeaseDirectory } from './lease-directory.ts';
import { listenPackageFlush } from './package-flush.ts';
import { type PackagePorts, withPackagePorts } from './package-ports.ts';

export interface ControlPlaneOptions {
  db: DbHandle;
  nodeId: string;
  /** This node as customers see it (written to gateway_nodes at start). */
  node: GatewayNodeInfo;
  geo?: GeoLookup;
  /** Full lease reload period (default 30 s). */
  reloadMs?: number;
  /** Meter flush period (default 2 s, at most 5 s). */
  flushMs?: number;
  /** Reverse DNS of agent addresses (default on). */
  reverseDns?: boolean;
  /** The clock of the lease and package loads (default `Date.now`); tests move it instead of waiting. */
  now?: () => number;
  onError?: (err: unknown) => void;
}

export interface ControlPlane {
  directory: PgLeaseDirectory;
  /** What the data path serves: the leases plus this node's package ports (`store/package-ports.ts`). */
  served: LeaseDirectory;
  packages: PackagePorts;
  meter: PgLeaseMeter;
  registry: PgAgentRegistry;
  /** Flushes the meter and marks this node's agents offline; call after the gateway closed. */
  close(): Promise<void>;
}

/**
 * The gateway's PostgreSQL-backed seam objects for one node, ready to hand to `startGateway`.
 * Resolves once the node row exists and the first lease load is done.
 */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { db, nodeId, onError } = options;
  const registry = createPgAgentRegistry({
    db,
    nodeId,
    node: options.node,
    geo: options.geo,
    reverseDns: options.reverseDns === false ? false : undefined,
    onError,
  });
  await registry.ready;
  const directory = createPgLeaseDirectory({
    db,
    nodeId,
    reloadMs: options.reloadMs,
    now: options.now,
    onError,
  });
  await directory.ready;
  const { directory: served, packages } = withPackagePorts(directory, {
    db,
    nodeId,
    now: options.now,
    onError,
  });
  await packages.ready;
  const meter = createPgLeaseMeter({ db, flushMs: options.flushMs, onError });
  const stopFlushAnswers = await listenPackageFlush({
    db,
    nodeId,
    meter,
    packages,
    onError,
  });
  return {
    directory,
    served,
    packages,
    meter,
    registry,
    async close() {
      await stopFlushAnswers();
      await meter.close();
      await packages.close();
      await directory.close();
      await registry.close();
    },
  };
}
