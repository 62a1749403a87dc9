import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { RawSocket } from './raw-tcp.ts';
import type { SealedAddon } from './sealed-records.ts';
import { type SealedKeys, SealedSocket } from './sealed-socket.ts';

/**
 * The tunnel's TLS handshake, run over the raw TCP socket through a small duplex, after which the
 * two sides may hand the connection over from TLS records to sealed records (`sealed-records.ts`),
 * keyed from the handshake with TLS's exporter (RFC 8446 section 7.5). ALPN says whether both
 * sides can: an agent or gateway without the addon leaves `pm-tunnel-sealed/1` out, and the
 * tunnel then keeps TLS records.
 *
 * The hand-over, in lock-step so that no sealed byte ever reaches a TLS reader:
 *   1. the agent sends SEAL over TLS and then nothing until step 3;
 *   2. the gateway reads SEAL (nothing follows it), stops reading TLS, sends SEAL over TLS, and then
 *      writes nothing until the agent's first record has come;
 *   3. the agent reads SEAL (nothing follows it), stops reading TLS, and speaks sealed records.
 */
const ALPN_SEALED = 'pm-tunnel-sealed/1';
const ALPN_TLS_RECORDS = 'pm-tunnel/1';
const EXPORTER_LABEL = 'EXPORTER-pm-tunnel-sealed-records';
const SEAL = Buffer.from('SEAL');

/** What the mux runs on: the sealed socket, or the TLS socket itself when TLS records stay. */
export type HandshakeResult = SealedSocket | tls.TLSSocket;

/** Carries the handshake's TLS bytes between the TLS socket and the raw socket. */
class HandshakeDuplex extends Duplex {
  private readonly raw: RawSocket;
  private detached = false;
  private readonly onEnd = () => this.push(null);
  private readonly onError = (err: Error) => this.destroy(err);
  /** Closed under the handshake (a timeout, the gateway shutting down): the TLS socket fails too. */
  private readonly onClose = () => this.destroy(new Error('tunnel: closed during the TLS handshake'));

  constructor(raw: RawSocket) {
    super();
    this.raw = raw;
    raw.readInto((chunk) => this.push(Buffer.from(chunk)));
    raw.on('end', this.onEnd);
    raw.on('error', this.onError);
    raw.on('close', this.onClose);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.detached || this.raw.destroyed) cb();
    else this.raw.write(chunk, () => cb());
  }

  override _final(cb: () => void): void {
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.detached) this.raw.destroy();
    cb(err);
  }

  /** Stops reading TLS: the raw socket pauses until the sealed socket reads it. */
  stopReading(): void {
    this.raw.pause();
    this.raw.onChunk = null;
    this.raw.off('end', this.onEnd);
    this.raw.off('error', this.onError);
    this.raw.off('close', this.onClose);
  }

  /** Stops writing TLS: what the TLS socket writes from now on (a close alert) is dropped. */
  stopWriting(): void {
    this.detached = true;
  }
}

function deriveKeys(socket: tls.TLSSocket, isAgent: boolean): SealedKeys {
  const m = socket.exportKeyingMaterial(56, EXPORTER_LABEL, Buffer.alloc(0));
  const up = { key: m.subarray(0, 16), iv: m.subarray(32, 44) };
  const down = { key: m.subarray(16, 32), iv: m.subarray(44, 56) };
  const [send, recv] = isAgent ? [up, down] : [down, up];
  return { sendKey: send.key, sendIv: send.iv, recvKey: recv.key, recvIv: recv.iv };
}

/**
 * Runs `socket`'s handshake over `duplex` and, where ALPN picked sealed records, the hand-over.
 * Rejects on a TLS error or a broken hand-over; the caller destroys the raw socket then.
 */
function handOver(
  socket: tls.TLSSocket,
  duplex: HandshakeDuplex,
  raw: RawSocket,
  native: SealedAddon | null,
  isAgent: boolean,
): Promise<HandshakeResult> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once(isAgent ? 'secureConnect' : 'secure', () => {
      if (socket.alpnProtocol !== ALPN_SEALED || !native) {
        socket.off('error', reject);
        resolve(socket);
        return;
      }
      const keys = deriveKeys(socket, isAgent);
      socket.once('data', (msg: Buffer) => {
        if (!SEAL.equals(msg)) return reject(new Error('tunnel: broken hand-over to sealed records'));
        duplex.stopReading();
        const done = () => {
          duplex.stopWriting();
          socket.off('error', reject);
          socket.on('error', () => {});
          socket.destroy();
          resolve(new SealedSocket(raw, native, keys, !isAgent));
        };
        if (isAgent) done();
        else socket.write(SEAL, done);
      });
      if (isAgent) socket.write(SEAL);
    });
  });
}

function alpn(native: SealedAddon | null): string[] {
  return native ? [ALPN_SEALED, ALPN_TLS_RECORDS] : [ALPN_TLS_RECORDS];
}

/** Agent side, on a connected raw socket. */
export function sealedConnect(
  raw: RawSocket,
  options: Omit<tls.ConnectionOptions, 'socket' | 'ALPNProtocols'>,
  native: SealedAddon | null,
): Promise<HandshakeResult> {
  const duplex = new HandshakeDuplex(raw);
  const socket = tls.connect({ ...options, socket: duplex, ALPNProtocols: alpn(native) });
  return handOver(socket, duplex, raw, native, true);
}

/** Gateway side, on an accepted raw socket. */
export function sealedAccept(
  raw: RawSocket,
  secureContext: tls.SecureContext,
  native: SealedAddon | null,
): Promise<HandshakeResult> {
  const duplex = new HandshakeDuplex(raw);
  const socket = new tls.TLSSocket(duplex, { isServer: true, secureContext, ALPNProtocols: alpn(native) });
  return handOver(socket, duplex, raw, native, false);
}
