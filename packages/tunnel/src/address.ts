/**
 * The SOCKS5 address and reply codes the tunnel carries: OPEN holds the destination exactly as
 * SOCKS encodes it (RFC 1928 section 5, so names travel unresolved), OPEN_FAIL a SOCKS reply code.
 * Shared by the gateway's SOCKS codec and the agent. Parsers return `undefined` for an incomplete
 * buffer and throw `SocksParseError` for one that can never be valid.
 */
import { isIP } from 'node:net';

/** Address types (RFC 1928 section 4/5). */
export const ATYP_IPV4 = 0x01;
export const ATYP_DOMAIN = 0x03;
export const ATYP_IPV6 = 0x04;

/** Reply codes (RFC 1928 section 6). */
export const REP_SUCCEEDED = 0x00;
export const REP_GENERAL_FAILURE = 0x01;
export const REP_NOT_ALLOWED = 0x02;
export const REP_NETWORK_UNREACHABLE = 0x03;
export const REP_HOST_UNREACHABLE = 0x04;
export const REP_CONNECTION_REFUSED = 0x05;
export const REP_TTL_EXPIRED = 0x06;
export const REP_COMMAND_NOT_SUPPORTED = 0x07;
export const REP_ADDRESS_TYPE_NOT_SUPPORTED = 0x08;

/** A frame that can never become valid, whatever bytes follow. */
export class SocksParseError extends Error {
  override name = 'SocksParseError';
}

/** A parsed frame and how many bytes of the input it used. */
export interface Parsed<T> {
  value: T;
  length: number;
}

export type AddressType = 'ipv4' | 'ipv6' | 'domain';

/** A destination: `host` is a dotted IPv4, a (compressed) IPv6 or a domain name. */
export interface Destination {
  type: AddressType;
  host: string;
  port: number;
}

/*
 * Address (request DST.ADDR/DST.PORT and reply BND.ADDR/BND.PORT), RFC 1928 section 5:
 *   ATYP 0x01: 4 bytes IPv4; 0x03: 1 length byte then the name (no NUL); 0x04: 16 bytes IPv6.
 *   followed by the port, 2 bytes, network order.
 */
/** Parses ATYP+ADDR+PORT starting at `offset`; `length` counts from `offset`. */
export function parseAddress(buf: Buffer, offset: number): Parsed<Destination> | undefined {
  if (buf.length < offset + 1) return undefined;
  const atyp = buf[offset]!;
  let p = offset + 1;
  let type: AddressType;
  let host: string;
  if (atyp === ATYP_IPV4) {
    if (buf.length < p + 6) return undefined;
    host = `${buf[p]}.${buf[p + 1]}.${buf[p + 2]}.${buf[p + 3]}`;
    type = 'ipv4';
    p += 4;
  } else if (atyp === ATYP_IPV6) {
    if (buf.length < p + 18) return undefined;
    host = formatIpv6(buf, p);
    type = 'ipv6';
    p += 16;
  } else if (atyp === ATYP_DOMAIN) {
    if (buf.length < p + 1) return undefined;
    const len = buf[p]!;
    if (len === 0) throw new SocksParseError('empty domain name');
    if (buf.length < p + 1 + len + 2) return undefined;
    host = buf.toString('latin1', p + 1, p + 1 + len);
    type = 'domain';
    p += 1 + len;
  } else {
    throw new SocksParseError(`unsupported address type ${atyp}`);
  }
  const port = buf.readUInt16BE(p);
  return { value: { type, host, port }, length: p + 2 - offset };
}

/** Encodes ATYP+ADDR+PORT; the type is taken from the host string (IP literal or name). */
export function encodeAddress(host: string, port: number): Buffer {
  const family = isIP(host);
  if (family === 4) {
    const b = Buffer.allocUnsafe(7);
    b[0] = ATYP_IPV4;
    const parts = host.split('.');
    for (let i = 0; i < 4; i++) b[1 + i] = Number(parts[i]);
    b.writeUInt16BE(port, 5);
    return b;
  }
  if (family === 6) {
    const b = Buffer.allocUnsafe(19);
    b[0] = ATYP_IPV6;
    writeIpv6(host, b, 1);
    b.writeUInt16BE(port, 17);
    return b;
  }
  const name = Buffer.from(host, 'latin1');
  if (name.length < 1 || name.length > 255) throw new RangeError('domain name must be 1 to 255 bytes');
  const b = Buffer.allocUnsafe(name.length + 4);
  b[0] = ATYP_DOMAIN;
  b[1] = name.length;
  name.copy(b, 2);
  b.writeUInt16BE(port, name.length + 2);
  return b;
}

/** Human text of a reply code, as RFC 1928 names it. */
export function replyText(code: number): string {
  return REPLY_TEXTS[code] ?? `unassigned reply ${code}`;
}

const REPLY_TEXTS: Record<number, string> = {
  0: 'succeeded',
  1: 'general SOCKS server failure',
  2: 'connection not allowed by ruleset',
  3: 'Network unreachable',
  4: 'Host unreachable',
  5: 'Connection refused',
  6: 'TTL expired',
  7: 'Command not supported',
  8: 'Address type not supported',
};

/**
 * Who a failed request is charged to (docs/gateway.md "Failure classes"). Only `agent` counts toward
 * the auto-refund: the proxy stopped working (tunnel gone or agent offline, an OPEN unanswered in
 * time, the agent's own error). `target`: the destination the customer chose refused, was
 * unreachable or unresolvable, or did not answer the agent's connect. `policy`: a rule refused it
 * (the agent's destination policy, an ended lease, an unsupported command). `limit`: the customer's
 * own stream share on the agent, or the agent's streams all in use.
 */
export type FailureClass = 'agent' | 'target' | 'policy' | 'limit';

/**
 * The class of a failed OPEN's reply code, as the agent (or the tunnel closing under the stream)
 * answered it: 01 is the agent's own failure (and what a pending OPEN gets when the tunnel dies);
 * 03, 04, 05 and 06 (the agent's connect timeout) are the target's; 02, 07 and 08 a rule's. The one
 * place that maps codes to classes; the gateway's own refusals (no tunnel, no answer in time, a
 * stream limit) name their class where they happen.
 */
export function failureClassOfReply(code: number): Exclude<FailureClass, 'limit'> {
  switch (code) {
    case REP_NETWORK_UNREACHABLE:
    case REP_HOST_UNREACHABLE:
    case REP_CONNECTION_REFUSED:
    case REP_TTL_EXPIRED:
      return 'target';
    case REP_NOT_ALLOWED:
    case REP_COMMAND_NOT_SUPPORTED:
    case REP_ADDRESS_TYPE_NOT_SUPPORTED:
      return 'policy';
    default:
      return 'agent';
  }
}

/**
 * Maps an OS/socket error to a SOCKS reply code (the one place that does this).
 * ECONNREFUSED, and a connection reset or aborted while connecting -> 05; EHOSTUNREACH, name
 * resolution failures (ENOTFOUND, EAI_AGAIN) and a name Node refuses to look up -> 04;
 * ENETUNREACH/ENETDOWN, an address family the agent's host lacks -> 03; ETIMEDOUT (connect
 * timeout) -> 06 "TTL expired", which is what RFC 1928 offers closest to "timed out" and what curl
 * and other clients print as such; EACCES/EPERM (policy) -> 02; anything else (out of descriptors
 * or memory, an unexpected error) -> 01, the agent's own failure (`failureClassOfReply`). So every
 * error a customer can provoke by choosing the destination maps to a target or policy code.
 */
export function replyCodeForError(err: unknown): number {
  const code = (err as { code?: string } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
    case 'ECONNRESET':
    case 'ECONNABORTED':
      return REP_CONNECTION_REFUSED;
    case 'ERR_INVALID_ARG_VALUE':
    case 'ERR_INVALID_IP_ADDRESS':
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_NODATA':
    case 'EAI_FAIL':
    case 'ENODATA':
      return REP_HOST_UNREACHABLE;
    case 'ENETUNREACH':
    case 'ENETDOWN':
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return REP_NETWORK_UNREACHABLE;
    case 'ETIMEDOUT':
    case 'ECONNTIMEDOUT':
      return REP_TTL_EXPIRED;
    case 'EACCES':
    case 'EPERM':
    case 'ERR_NOT_ALLOWED':
      return REP_NOT_ALLOWED;
    default:
      return REP_GENERAL_FAILURE;
  }
}

function formatIpv6(buf: Buffer, p: number): string {
  const groups: string[] = [];
  for (let i = 0; i < 8; i++) groups.push(buf.readUInt16BE(p + i * 2).toString(16));
  // Compress the longest run of two or more zero groups (RFC 5952).
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`;
}

function writeIpv6(host: string, b: Buffer, p: number): void {
  let h = host;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups.
  const lastColon = h.lastIndexOf(':');
  const tail = h.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = tail.split('.').map(Number);
    h = `${h.slice(0, lastColon + 1)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, rest] = h.split('::') as [string, string | undefined];
  const a = head ? head.split(':') : [];
  const c = rest === undefined ? [] : rest ? rest.split(':') : [];
  const zeros = 8 - a.length - c.length;
  const all = [...a, ...Array<string>(rest === undefined ? 0 : zeros).fill('0'), ...c];
  for (let i = 0; i < 8; i++) b.writeUInt16BE(Number.parseInt(all[i] ?? '0', 16), p + i * 2);
}
