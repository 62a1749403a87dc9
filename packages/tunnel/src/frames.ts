/*
 * Agent <-> gateway tunnel framing (one TCP or TLS connection, many streams):
 *
 *   +------+-----------+-----------+-----------------+
 *   | TYPE | STREAM ID |  LENGTH   |     PAYLOAD     |
 *   +------+-----------+-----------+-----------------+
 *   |  1   |  4 (BE)   |  4 (BE)   |  LENGTH bytes   |
 *   +------+-----------+-----------+-----------------+
 *
 * Stream 0 carries the connection-level frames (HELLO, WELCOME, REJECT, PING, PONG).
 * Only the gateway opens streams (OPEN); the agent answers OPEN_OK or OPEN_FAIL (one byte,
 * the SOCKS reply code). DATA is flow controlled per stream: a sender may have at most the
 * receiver's window of unacknowledged DATA bytes outstanding; the receiver returns credit
 * with WINDOW (u32 increment) once it has handed the bytes to its socket without backpressure.
 * FIN is a half-close (no more DATA from the sender), RST aborts the stream. RENEW (gateway ->
 * agent, stream 0) asks the agent to dial a fresh tunnel: the old one serves its open streams to
 * their end and closes, so no tunnel outlives its TLS keys' record budget.
 */

export const FRAME_HEADER_BYTES = 9;

export const T_HELLO = 0x01;
export const T_WELCOME = 0x02;
export const T_REJECT = 0x03;
export const T_OPEN = 0x10;
export const T_OPEN_OK = 0x11;
export const T_OPEN_FAIL = 0x12;
export const T_DATA = 0x20;
export const T_WINDOW = 0x21;
export const T_FIN = 0x22;
export const T_RST = 0x23;
export const T_PING = 0x30;
export const T_PONG = 0x31;
export const T_RENEW = 0x32;

/** Largest DATA payload accepted in one frame. */
export const MAX_DATA_FRAME = 1 << 20;
/** Largest payload of any other frame. */
export const MAX_CONTROL_FRAME = 4096;

/** Protocol version sent in HELLO. */
export const TUNNEL_VERSION = 1;

/** HELLO payload (JSON), agent -> gateway. */
export interface HelloMessage {
  v: number;
  key: string;
  conn: 'wifi' | 'cell';
  dev: 'android' | 'other';
  /** Public address override (devnet synthetic identities); honoured only when the gateway trusts it. */
  ip?: string;
  /** Per-stream receive window the agent grants (the gateway's send window). */
  window: number;
  /** Streams the agent serves at once; the gateway opens no more (absent: the gateway's own limit). */
  maxStreams?: number;
}

/** WELCOME payload (JSON), gateway -> agent. */
export interface WelcomeMessage {
  agentId: string;
  /** Per-stream receive window the gateway grants (the agent's send window). */
  window: number;
  /**
   * The agent's address as the gateway sees the tunnel come from (its exit, usually the home
   * router's public address): the agent refuses it as a destination.
   */
  exit?: string;
  /** The gateway's own addresses (public, listeners): the agent refuses them as destinations. */
  gateway?: string[];
  /** How often the agent should PING, ms (`AGENT_PING_MS`); absent from older gateways. */
  pingMs?: number;
}

/** Encodes a frame header. */
export function encodeHeader(type: number, streamId: number, length: number): Buffer {
  const h = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  h[0] = type;
  h.writeUInt32BE(streamId, 1);
  h.writeUInt32BE(length, 5);
  return h;
}
