import net from 'node:net';
import { isLoopbackHost } from '@pm/tunnel';
import { checkPortPlan, DEFAULT_PORTS, PORT_VARIABLES, type PortPlan } from './port-plan.ts';

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

/** Everything a production node reads from its environment, checked (see docs/gateway.md). */
export interface NodeEnv extends NodeExposure, Omit<PortPlan, 'others'> {
  databaseUrl: string;
  /** Paths of the tunnel's PEM certificate (chain) and key. */
  tlsCertFile: string;
  tlsKeyFile: string;
  nodeId: string;
  host: string;
  metricsPort: number | undefined;
  geo: 'dbip' | 'off';
  probeUrl: string;
  speedUrl: string;
  echoUrl: string;
  logLevel: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Reads and checks a production node's whole environment, as the other apps' `main.ts` do: every
 * problem is collected, each naming its variable, so one start reports them all.
 */
export function readNodeEnv(
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; value: NodeEnv } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  // The ports are checked against each other only when each one read as a number.
  let badNumber = false;
  const str = (name: string, fallback: string) => env[name]?.trim() || fallback;
  const port = (name: string, fallback?: number): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n > 65535) {
      badNumber = true;
      problems.push(`${name} must be a port (0-65535), got "${raw}"`);
      return fallback;
    }
    return n;
  };
  const count = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^\d{1,6}$/.test(raw)) {
      badNumber = true;
      problems.push(`${name} must be a whole number, got "${raw}"`);
      return fallback;
    }
    return Number(raw);
  };
  const url = (name: string, fallback: string) => {
    const value = str(name, fallback);
    if (!/^http:\/\/[^/\s]+/.test(value))
      problems.push(`${name} must be a plain http:// URL, got "${value}"`);
    return value;
  };
  const tlsCertFile = str('GATEWAY_TLS_CERT', '');
  const tlsKeyFile = str('GATEWAY_TLS_KEY', '');
  if (!tlsCertFile || !tlsKeyFile) {
    // Agent keys and every customer's traffic cross the tunnel: it is TLS or nothing.
    problems.push(
      "GATEWAY_TLS_CERT and GATEWAY_TLS_KEY are required: PEM files of the certificate and key of the agents' TLS tunnel (plaintext only in the devnet and --standalone --plaintext)",
    );
  }
  const databaseUrl = str('DATABASE_URL', '');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(
      databaseUrl
        ? `DATABASE_URL must be a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@/]*@/, '//…@')}"`
        : 'DATABASE_URL is required (or use --standalone)',
    );
  }
  const geo = str('GATEWAY_GEO', 'dbip');
  if (geo !== 'dbip' && geo !== 'off') problems.push(`GATEWAY_GEO must be dbip or off, got "${geo}"`);
  const logLevel = str('LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join('|')}, got "${logLevel}"`);
  const nodeId = str('GATEWAY_NODE_ID', 'gw-1');
  if (!/^[\w.-]{1,64}$/.test(nodeId))
    problems.push(`GATEWAY_NODE_ID must be 1-64 letters, digits, '.', '-' or '_', got "${nodeId}"`);
  const value = {
    databaseUrl,
    tlsCertFile,
    tlsKeyFile,
    nodeId,
    host: str('GATEWAY_HOST', '0.0.0.0'),
    tunnelPort: port('GATEWAY_TUNNEL_PORT', 7000) as number,
    socksBasePort: port('GATEWAY_SOCKS_BASE_PORT', 0) as number,
    metricsPort: port('GATEWAY_METRICS_PORT'),
    ...readPortRanges(port, count),
    geo: geo as NodeEnv['geo'],
    probeUrl: url('GATEWAY_PROBE_URL', 'http://checkip.amazonaws.com/'),
    speedUrl: url('GATEWAY_SPEED_URL', 'http://speedtest.tele2.net/10MB.zip'),
    echoUrl: url('GATEWAY_ECHO_URL', 'http://checkip.amazonaws.com/'),
    logLevel,
  };
  if (!badNumber) problems.push(...checkPortPlan(value));
  const exposure = readNodeExposure(env);
  if (!exposure.ok) problems.push(...exposure.problems);
  if (problems.length > 0 || !exposure.ok) return { ok: false, problems };
  return { ok: true, value: { ...value, ...exposure.value } };
}

/** The no-auth and package ranges, the HTTP twin offset and the spare pool (`port-plan.ts` defaults). */
function readPortRanges(
  port: (name: string, fallback: number) => number | undefined,
  count: (name: string, fallback: number) => number,
): Pick<
  PortPlan,
  'authPortMin' | 'authPortMax' | 'packagePortMin' | 'packagePortMax' | 'httpPortOffset' | 'packageSparePorts'
> {
  const v = PORT_VARIABLES;
  const d = DEFAULT_PORTS;
  return {
    authPortMin: port(v.authPortMin, d.authPortMin) as number,
    authPortMax: port(v.authPortMax, d.authPortMax) as number,
    packagePortMin: port(v.packagePortMin, d.packagePortMin) as number,
    packagePortMax: port(v.packagePortMax, d.packagePortMax) as number,
    httpPortOffset: port(v.httpPortOffset, d.httpPortOffset) as number,
    packageSparePorts: count(v.packageSparePorts, d.packageSparePorts),
  };
}
