import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { type GatewayHandle, startGateway } from './gateway.ts';
import { createMemoryDirectory, createMemoryMeter, createMemoryRegistry } from './policy/memory.ts';
import { makeSelfSignedCert } from './tunnel/self-signed.ts';

export interface StandaloneOptions {
  host: string;
  socksPort: number;
  /** The leases' HTTP proxy port (Basic `Proxy-Authorization`; 0: a free port). */
  httpPort: number;
  /** The bench lease's no-auth port, open to 127.0.0.1 (0: a free port). */
  authPort: number;
  tunnelPort: number;
  metricsPort?: number;
  /** The tunnel without TLS, on loopback only (what TLS costs, in the benchmark). */
  plaintext: boolean;
  log: (msg: string, fields?: Record<string, unknown>) => void;
}

/**
 * The benchmark's gateway: no database, one in-memory lease and agent key, a TLS tunnel with a
 * throwaway self-signed certificate (or plaintext on loopback when asked). Prints what the agent
 * and the load generator need as one JSON line on stdout, and what it is on stderr.
 */
export async function startStandalone(
  options: StandaloneOptions,
): Promise<{ gateway: GatewayHandle; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-standalone-'));
  let tls: { cert: string; key: string } | undefined;
  let caFile: string | undefined;
  if (!options.plaintext) {
    // The agent trusts it with --ca.
    tls = makeSelfSignedCert();
    caFile = join(dir, 'cert.pem');
    writeFileSync(caFile, tls.cert);
  }
  console.error(
    `standalone benchmark gateway: in-memory bench lease, ${tls ? 'TLS 1.3 tunnel with a throwaway self-signed certificate' : 'PLAINTEXT tunnel on loopback'}; not for production`,
  );
  const user = 'bench';
  const pwd = randomBytes(9).toString('base64url');
  const agentKey = randomBytes(24).toString('base64url');
  const authPort = options.authPort || (await freePort(options.host));
  const gateway = await startGateway({
    nodeId: 'standalone',
    host: options.host,
    tunnelPort: options.tunnelPort,
    socksPorts: [options.socksPort],
    httpPorts: [options.httpPort],
    tls,
    plaintextTunnel: !tls,
    directory: createMemoryDirectory([
      {
        leaseId: 'bench-lease',
        agentId: 'bench-agent',
        user,
        pwd,
        // The same lease without a password on its no-auth port, from this machine only.
        whitelist: ['127.0.0.1'],
        authPort,
        untilMs: Date.now() + 365 * 86_400_000,
        // The only lease on the bench agent: its connections may use the whole stream limit.
        exclusive: true,
      },
    ]),
    meter: createMemoryMeter(),
    registry: createMemoryRegistry({ [agentKey]: 'bench-agent' }),
    handshakeTimeoutMs: 10_000,
    maxStreamsPerAgent: 40_000,
    metricsPort: options.metricsPort,
    log: options.log,
  });
  console.log(
    JSON.stringify({
      socksPorts: gateway.socksPorts,
      httpPorts: gateway.httpPorts,
      authPort,
      tunnelPort: gateway.tunnelPort,
      user,
      pwd,
      agentKey,
      caFile,
      tunnel: tls ? 'tls' : 'plaintext',
    }),
  );
  return {
    gateway,
    async stop() {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
