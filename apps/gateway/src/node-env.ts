import net from 'node:net';
import { isLoopbackHost } from '@pm/tunnel';

/** Settings only the devnet may use: a production node refuses to start with any of them set. */
export const DEVNET_ONLY_SETTINGS: Readonly<Record<string, string>> = {
  GATEWAY_TRUST_AGENT_IP:
    "honours the address an agent claims for itself (the devnet's synthetic identities); a production node uses the address it sees",
};

/** What a production node's environment says about where it is reached and where metrics are served. */
export interface NodeExposure {
  publicIp: string;
  publicHost: string;
  metricsHost: string;
  metricsToken: string | undefined;
}

/**
 * Checks the exposure settings of a production node: no devnet-only setting, `GATEWAY_PUBLIC_IP`
 * given (a public address, written on every lease; never a silent 127.0.0.1), and metrics on
 * loopback unless a bearer token guards them. Returns the settings or every problem, named.
 */
export function readNodeExposure(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: NodeExposure } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  for (const [name, why] of Object.entries(DEVNET_ONLY_SETTINGS)) {
    if (env[name] !== undefined && env[name] !== '')
      problems.push(`${name} is a devnet-only setting (it ${why}): unset it`);
  }
  const publicIp = env.GATEWAY_PUBLIC_IP?.trim() ?? '';
  if (!publicIp) {
    problems.push(
      'GATEWAY_PUBLIC_IP is required: the address customers reach this node at (written on its leases, refused by its agents)',
    );
  } else if (
    net.isIP(publicIp) === 0 ||
    isLoopbackHost(publicIp) ||
    publicIp === '0.0.0.0' ||
    publicIp === '::'
  ) {
    problems.push(`GATEWAY_PUBLIC_IP must be the node's public IP address, got "${publicIp}"`);
  }
  const metricsHost = env.GATEWAY_METRICS_HOST?.trim() || '127.0.0.1';
  const metricsToken = env.GATEWAY_METRICS_TOKEN?.trim() || undefined;
  if (!isLoopbackHost(metricsHost) && !metricsToken) {
    problems.push(
      `GATEWAY_METRICS_HOST=${metricsHost} serves metrics beyond this machine: set GATEWAY_METRICS_TOKEN (scrapers send it as a bearer token) or keep it on 127.0.0.1`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: { publicIp, publicHost: env.GATEWAY_PUBLIC_HOST?.trim() || publicIp, metricsHost, metricsToken },
  };
}
