import type net from 'node:net';
import { T_DATA } from './frames.ts';
import type { Mux } from './mux.ts';
import { coveredBytes, type LocalSocket, type MuxStream } from './mux-stream.ts';

/**
 * The local side of a stream (`Mux.attach`): binds it to its socket and relays both ways with flow
 * control. `early`: bytes read from the socket already, sent first; `ended`: its 'end' came
 * already. Reads come as 'data' events, or, with `transient`, from the caller, who passes each chunk
 * of a socket made with Node's `onread` to the returned function (the chunk is only valid during
 * that call).
 */
export function relayLocal(
  mux: Mux,
  st: MuxStream,
  socket: LocalSocket,
  early: Buffer | undefined,
  ended: boolean,
  transient: boolean,
): (chunk: Buffer) => void {
  st.socket = socket;
  (socket as Partial<net.Socket>).setNoDelay?.(true);
  const onChunk = (chunk: Buffer) => {
    if (st.closed) return;
    st.allowance -= chunk.length;
    if (st.allowance < 0) {
      const covered = coveredBytes(st, chunk.length);
      if (covered < chunk.length) {
        // The budget is spent: what it still covered goes out, then the stream is reset.
        st.allowance = covered;
        if (covered > 0) onChunk(chunk.subarray(0, covered));
        mux.reset(st);
        return;
      }
    }
    st.sentBytes += chunk.length;
    if (st.pending || mux.isBlocked()) {
      // Held back (window or a full tunnel): no DATA is queued past the high-water mark.
      st.pending = st.pending ? Buffer.concat([st.pending, chunk]) : transient ? Buffer.from(chunk) : chunk;
      mux.holdBack(st);
      return;
    }
    const n = Math.min(chunk.length, st.sendWindow);
    if (n > 0) {
      st.sendWindow -= n;
      // A transient chunk is at most the read buffer's size, which the frame writer copies.
      mux.writeFrame(T_DATA, st.id, n === chunk.length ? chunk : chunk.subarray(0, n), true);
    }
    if (n < chunk.length) {
      st.pending = transient ? Buffer.from(chunk.subarray(n)) : chunk.subarray(n);
      socket.pause();
    } else if (mux.isBlocked()) {
      mux.holdBack(st);
    }
  };
  // The early bytes first, then what the socket holds (a paused socket's buffer), then new reads.
  if (early?.length) onChunk(early);
  if (!transient) socket.on('data', onChunk);
  if (!st.pending && !st.blocked) socket.resume();
  const onEnd = () => {
    if (st.closed) return;
    if (st.pending) st.finPending = true;
    else mux.sendFin(st);
  };
  if (ended) onEnd();
  else socket.on('end', onEnd);
  socket.on('drain', () => {
    if (st.unflushed > 0) {
      const n = st.unflushed;
      st.unflushed = 0;
      mux.grant(st, n);
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    if (st.closed) return;
    // A clean local EOF whose last bytes wait for window: finish when they and the FIN are sent.
    if (st.finPending) st.localClosed = true;
    else mux.finish(st);
  });
  return onChunk;
}
