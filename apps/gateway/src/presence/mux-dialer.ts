import net from 'node:net';
import type { Duplex } from 'node:stream';
import { encodeAddress, type Mux } from '@pm/tunnel';
import type { AgentDialer } from '../policy/types.ts';

export interface MuxDialer extends AgentDialer {
  close(): Promise<void>;
}

/**
 * An `AgentDialer` over the gateway's agent tunnels (`getTunnel` is the tunnel server's `get`). The
 * multiplexer relays between a stream and a socket, so each dial makes a loopback socket pair: the
 * stream is attached to one end, the caller gets the other. Meant for probes and speed tests (a
 * few per agent per minute), not for customer traffic.
 */
export function createMuxDialer(
  getTunnel: (agentId: string) => Mux | undefined,
  options: { openTimeoutMs?: number } = {},
): MuxDialer {
  const openTimeoutMs = options.openTimeoutMs ?? 15_000;
  // The two ends of a pair meet by port; either may show up first.
  const waiting = new Map<number, (socket: net.Socket) => void>();
  const arrived = new Map<number, net.Socket>();
  let server: net.Server | undefined;
  let listening: Promise<number> | undefined;

  function pairServer(): Promise<number> {
    listening ??= new Promise<number>((resolve, reject) => {
      server = net.createServer({ allowHalfOpen: true }, (socket) => {
        const key = socket.remotePort ?? -1;
        const claim = waiting.get(key);
        if (claim) return claim(socket);
        arrived.set(key, socket);
        setTimeout(() => {
          if (arrived.get(key) === socket) {
            arrived.delete(key);
            socket.destroy();
          }
        }, 5000).unref();
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server!.address() as net.AddressInfo).port));
    });
    return listening;
  }

  /** A connected loopback pair: `near` goes to the caller, `far` to the tunnel stream. */
  async function socketPair(): Promise<{ near: net.Socket; far: net.Socket }> {
    const port = await pairServer();
    return new Promise((resolve, reject) => {
      const near = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      near.once('error', reject);
      near.once('connect', () => {
        const key = near.localPort ?? -1;
        const far = arrived.get(key);
        if (far) {
          arrived.delete(key);
          near.off('error', reject);
          return resolve({ near, far });
        }
        const timer = setTimeout(() => {
          waiting.delete(key);
          near.destroy();
          reject(new Error('loopback pair timed out'));
        }, 5000);
        waiting.set(key, (far) => {
          clearTimeout(timer);
          waiting.delete(key);
          near.off('error', reject);
          resolve({ near, far });
        });
      });
    });
  }

  return {
    async dial(agentId, host, port) {
      const mux = getTunnel(agentId);
      if (!mux || mux.closed) throw new Error('agent offline');
      const { near, far } = await socketPair();
      return new Promise<Duplex>((resolve, reject) => {
        const fail = (message: string) => {
          near.destroy();
          far.destroy();
          reject(new Error(message));
        };
        const st = mux.open(encodeAddress(host, port), (code) => {
          clearTimeout(timer);
          if (code !== 0) return fail(`agent could not connect (SOCKS reply ${code})`);
          mux.attach(st, far);
          resolve(near);
        });
        const timer = setTimeout(() => {
          st.onOpenResult = null;
          mux.reset(st);
          fail('agent did not answer in time');
        }, openTimeoutMs);
      });
    },
    async close() {
      for (const socket of arrived.values()) socket.destroy();
      arrived.clear();
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
