import net from 'node:net';

/**
 * Node's `onread` option (a socket reads into one buffer of the caller's, reused for every read,
 * instead of allocating a fresh buffer per read) is offered for client sockets only: `net.Server`
 * and `tls.Server` sockets cannot ask for it. Its machinery is the same for every socket, though:
 * three symbol-keyed fields on the socket and `useUserBuffer` on its handle. We find the symbols
 * on a probe socket made with the public option, and set the same fields on the tunnel's socket.
 *
 * Measured on the bench pair (docs/benchmarks.md): a fresh 16 KiB buffer per TLS record drives
 * V8's external-memory GC (a mark-compact every ~100 MB) and the Readable 'data' path; reading
 * into one buffer and copying the payload once costs about a third less CPU per byte received.
 */
interface OnreadSymbols {
  buffer: symbol;
  callback: symbol;
  generator: symbol;
}

let symbols: OnreadSymbols | null | undefined;
/**
 * One buffer for every socket of the process: a read's callback is done with its chunk before the
 * next read of any socket, and one buffer per socket would cost 10,000 held connections 640 MB.
 */
const SHARED_BYTES = 64 * 1024;
let shared: Buffer | null = null;

/** The process's one read buffer (see `readIntoOwnBuffer`; `RawSocket` reads into it too). */
export function sharedReadBuffer(): Buffer {
  shared ??= Buffer.allocUnsafe(SHARED_BYTES);
  return shared;
}

/** The first `n` bytes of the shared read buffer: a read's chunk, valid only during its callback. */
export function sharedChunk(n: number): Buffer {
  const buf = sharedReadBuffer();
  return n === SHARED_BYTES ? buf : buf.subarray(0, n);
}

function onreadSymbols(): OnreadSymbols | null {
  if (symbols !== undefined) return symbols;
  const probe = new net.Socket({ onread: { buffer: Buffer.alloc(1), callback: () => true } });
  const byName = new Map(Object.getOwnPropertySymbols(probe).map((s) => [s.description, s]));
  probe.destroy();
  const buffer = byName.get('kBuffer');
  const callback = byName.get('kBufferCb');
  const generator = byName.get('kBufferGen');
  symbols = buffer && callback && generator ? { buffer, callback, generator } : null;
  return symbols;
}

interface HandleWithUserBuffer {
  useUserBuffer?: (buf: Uint8Array) => void;
}

/**
 * Makes `socket` read into the process's shared read buffer and hands each read to `onChunk`,
 * which must be done with the chunk when it returns (the next read, of any socket, overwrites
 * it). Bytes the socket had buffered already are handed over first. Returns false, changing
 * nothing, where this Node has not the machinery: the caller then reads with 'data' events.
 */
export function readIntoOwnBuffer(socket: net.Socket, onChunk: (chunk: Buffer) => void): boolean {
  const sym = onreadSymbols();
  const handle = (socket as unknown as { _handle: HandleWithUserBuffer | null })._handle;
  if (!sym || (handle && typeof handle.useUserBuffer !== 'function')) return false;
  const buf = sharedReadBuffer();
  const fields = socket as unknown as Record<symbol, unknown>;
  fields[sym.buffer] = buf;
  fields[sym.generator] = null;
  fields[sym.callback] = (n: number) => {
    onChunk(sharedChunk(n));
    return true;
  };
  // A socket without a handle yet (connect pending) installs the buffer when it gets one.
  handle?.useUserBuffer?.(buf);
  for (let c = socket.read() as Buffer | null; c !== null; c = socket.read() as Buffer | null) onChunk(c);
  socket.resume();
  return true;
}
