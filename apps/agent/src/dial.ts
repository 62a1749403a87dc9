import net from 'node:net';
import tls from 'node:tls';
import { isLoopbackHost, TUNNEL_TLS, type TunnelTransport } from '@pm/tunnel';
import type { AgentConfig } from './agent.ts';

export interface Dialing {
  /** Gives up: the connection in progress is destroyed and neither callback is called. */
  cancel(): void;
}

/**
 * Why the agent may not dial as configured, or null: TLS always, except `plaintext` to a loopback
 * gateway (the devnet, the standalone benchmark, tests).
 */
export function dialRefusal(config: Pick<AgentConfig, 'gateway' | 'plaintext'>): string | null {
  if (config.plaintext && !isLoopbackHost(config.gateway.host)) {
    return `a plaintext tunnel is for a gateway on loopback only, not ${config.gateway.host}`;
  }
  return null;
}

/**
 * Connects to the gateway and calls `onReady` with the tunnel's transport once it is usable (TLS
 * 1.3 up and the gateway's certificate verified for the name or address dialed), or `onFail` once.
 * The whole dial is bounded by `timeoutMs`.
 */
export function dialGateway(
  config: Pick<AgentConfig, 'gateway' | 'tls' | 'plaintext' | 'localAddress'>,
  timeoutMs: number,
  onReady: (socket: TunnelTransport) => void,
  onFail: (err: Error) => void,
): Dialing {
  const { host, port } = config.gateway;
  const { localAddress } = config;
  let done = false;
  const finish = (err: Error | null) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (err) {
      socket.destroy();
      onFail(err);
    } else {
      socket.removeAllListeners('error');
      onReady(socket);
    }
  };
  const timer = setTimeout(() => finish(new Error('tunnel: connecting to the gateway timed out')), timeoutMs);
  // The certificate is checked against `host` as dialed: an address must be in its IP names, a
  // name in its DNS names (`servername` overrides, and is sent as SNI; an address never is).
  // `tls.connect` passes net's connect options on (its types leave `localAddress` out).
  const tlsOptions: tls.ConnectionOptions & Pick<net.TcpNetConnectOpts, 'localAddress'> = {
    ...TUNNEL_TLS,
    host,
    port,
    localAddress,
    ca: config.tls?.ca,
    servername: config.tls?.servername ?? (net.isIP(host) ? undefined : host),
  };
  const socket = config.plaintext
    ? net.connect({ host, port, localAddress, noDelay: true })
    : tls.connect(tlsOptions);
  socket.once('error', (err) => finish(err));
  socket.once(config.plaintext ? 'connect' : 'secureConnect', () => finish(null));

  return {
    cancel: () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
    },
  };
}
