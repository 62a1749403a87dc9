import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import type { TunnelTransport } from '@pm/gateway/tunnel/mux';
import { connectTcp, type RawSocket } from '@pm/gateway/tunnel/raw-tcp';
import { sealedConnect } from '@pm/gateway/tunnel/sealed-handshake';
import { sealedRecordsAddon } from '@pm/gateway/tunnel/sealed-records';
import type { AgentConfig } from './agent.ts';

export interface Dialing {
  /** Gives up: the connection in progress is destroyed and neither callback is called. */
  cancel(): void;
}

/**
 * Connects to the gateway and calls `onReady` with the tunnel's transport once it is usable (TLS
 * verified, and handed over to sealed records where both sides have the addon), or `onFail` once.
 * The whole dial is bounded by `timeoutMs`. The gateway's name goes to the system resolver, as
 * `net.connect` does on the other paths (the agent's `lookup` is for customers' destinations).
 */
export function dialGateway(
  config: Pick<AgentConfig, 'gateway' | 'tls' | 'sealedRecords'>,
  timeoutMs: number,
  onReady: (socket: TunnelTransport) => void,
  onFail: (err: Error) => void,
): Dialing {
  const { host, port } = config.gateway;
  let done = false;
  let socket: { destroy(): unknown } | null = null;
  const finish = (err: Error | null, ready?: TunnelTransport) => {
    if (done) {
      ready?.destroy();
      return;
    }
    done = true;
    clearTimeout(timer);
    if (err || !ready) {
      socket?.destroy();
      onFail(err ?? new Error('tunnel: no transport'));
    } else {
      onReady(ready);
    }
  };
  const timer = setTimeout(() => finish(new Error('tunnel: connecting to the gateway timed out')), timeoutMs);
  const tlsOptions = config.tls && {
    ca: config.tls.ca,
    servername: config.tls.servername ?? (net.isIP(host) ? undefined : host),
    rejectUnauthorized: !config.tls.insecure,
  };
  const native = tlsOptions && config.sealedRecords !== false ? sealedRecordsAddon() : null;

  if (tlsOptions && native) {
    dns.lookup(host, { verbatim: true }, (err, ip) => {
      if (done) return;
      if (err) return finish(err);
      const raw: RawSocket = connectTcp(ip, port, (connectErr) => {
        if (connectErr) return finish(connectErr);
        sealedConnect(raw, tlsOptions, native).then(
          (ready) => finish(null, ready),
          (handshakeErr: Error) => finish(handshakeErr),
        );
      });
      socket = raw;
    });
  } else {
    const s = tlsOptions
      ? tls.connect({ host, port, ...tlsOptions })
      : net.connect({ host, port, noDelay: true });
    socket = s;
    s.once('error', (err) => finish(err));
    s.once(tlsOptions ? 'secureConnect' : 'connect', () => {
      s.removeAllListeners('error');
      finish(null, s);
    });
  }

  return {
    cancel: () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.destroy();
    },
  };
}
