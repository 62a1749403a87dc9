/**
 * Pure SOCKS5 (RFC 1928) and username/password subnegotiation (RFC 1929) parsing and encoding.
 * Buffer in, typed frame out. Parsers return `undefined` when the buffer holds an incomplete
 * frame (read more and call again) and throw `SocksParseError` when it can never be valid.
 */
import { isIP } from 'node:net';

export const SOCKS_VERSION = 0x05;
export const AUTH_VERSION = 0x01;

/** Method codes of the greeting / method selection (RFC 1928 section 3). */
export const METHOD_NO_AUTH = 0x00;
export const METHOD_USER_PASS = 0x02;
export const METHOD_NO_ACCEPTABLE = 0xff;

/** Request commands (RFC 1928 section 4). */
export const CMD_CONNECT = 0x01;
export const CMD_BIND = 0x02;
export const CMD_UDP_ASSOCIATE = 0x03;

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

export interface SocksRequest extends Destination {
  command: number;
}

/*
 * Greeting (client -> server), RFC 1928 section 3:
 *   +----+----------+----------+
 *   |VER | NMETHODS | METHODS  |
 *   +----+----------+----------+
 *   | 1  |    1     | 1 to 255 |
 *   +----+----------+----------+
 */
/** Parses the client's greeting into its list of offered methods. */
export function parseGreeting(buf: Buffer): Parsed<number[]> | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== SOCKS_VERSION) throw new SocksParseError(`bad version ${buf[0]}`);
  const n = buf[1]!;
  if (n === 0) throw new SocksParseError('no methods');
  if (buf.length < 2 + n) return undefined;
  const methods: number[] = [];
  for (let i = 0; i < n; i++) methods.push(buf[2 + i]!);
  return { value: methods, length: 2 + n };
}

/** Encodes a greeting offering `methods`. */
export function encodeGreeting(methods: number[]): Buffer {
  return Buffer.from([SOCKS_VERSION, methods.length, ...methods]);
}

/*
 * Method selection (server -> client), RFC 1928 section 3:
 *   +----+--------+
 *   |VER | METHOD |
 *   +----+--------+
 *   | 1  |   1    |
 *   +----+--------+
 */
/** Encodes the server's method selection. */
export function encodeMethodSelection(method: number): Buffer {
  return Buffer.from([SOCKS_VERSION, method]);
}

/** Parses the server's method selection. */
export function parseMethodSelection(buf: Buffer): Parsed<number> | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== SOCKS_VERSION) throw new SocksParseError(`bad version ${buf[0]}`);
  return { value: buf[1]!, length: 2 };
}

/*
 * Username/password request (client -> server), RFC 1929 section 2:
 *   +----+------+----------+------+----------+
 *   |VER | ULEN |  UNAME   | PLEN |  PASSWD  |
 *   +----+------+----------+------+----------+
 *   | 1  |  1   | 1 to 255 |  1   | 1 to 255 |
 *   +----+------+----------+------+----------+
 * VER is 0x01. Names and passwords are read as UTF-8 (RFC 1929 says octets; every client we
 * know sends ASCII or UTF-8).
 */
export interface UserPass {
  user: string;
  pwd: string;
}

/** Parses the RFC 1929 username/password request. */
export function parseUserPass(buf: Buffer): Parsed<UserPass> | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== AUTH_VERSION) throw new SocksParseError(`bad auth version ${buf[0]}`);
  const ulen = buf[1]!;
  if (ulen === 0) throw new SocksParseError('empty username');
  if (buf.length < 2 + ulen + 1) return undefined;
  const plen = buf[2 + ulen]!;
  if (plen === 0) throw new SocksParseError('empty password');
  const end = 3 + ulen + plen;
  if (buf.length < end) return undefined;
  return {
    value: { user: buf.toString('utf8', 2, 2 + ulen), pwd: buf.toString('utf8', 3 + ulen, end) },
    length: end,
  };
}

/** Encodes an RFC 1929 username/password request. */
export function encodeUserPass(user: string, pwd: string): Buffer {
  const u = Buffer.from(user, 'utf8');
  const p = Buffer.from(pwd, 'utf8');
  if (u.length < 1 || u.length > 255 || p.length < 1 || p.length > 255) {
    throw new RangeError('username and password must be 1 to 255 bytes');
  }
  return Buffer.concat([Buffer.from([AUTH_VERSION, u.length]), u, Buffer.from([p.length]), p]);
}

/*
 * Username/password status (server -> client), RFC 1929 section 2:
 *   +----+--------+
 *   |VER | STATUS |
 *   +----+--------+
 *   | 1  |   1    |
 *   +----+--------+
 * STATUS 0x00 is success; anything else is failure and the server must close the connection.
 */
/** Encodes the RFC 1929 status (0x00 success, 0x01 failure). */
export function encodeUserPassStatus(ok: boolean): Buffer {
  return Buffer.from([AUTH_VERSION, ok ? 0x00 : 0x01]);
}

/** Parses the RFC 1929 status: true for success. */
export function parseUserPassStatus(buf: Buffer): Parsed<boolean> | undefined {
  if (buf.length < 2) return undefined;
  if (buf[0] !== AUTH_VERSION) throw new SocksParseError(`bad auth version ${buf[0]}`);
  return { value: buf[1] === 0x00, length: 2 };
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

/*
 * Request (client -> server), RFC 1928 section 4:
 *   +----+-----+-------+------+----------+----------+
 *   |VER | CMD |  RSV  | ATYP | DST.ADDR | DST.PORT |
 *   +----+-----+-------+------+----------+----------+
 *   | 1  |  1  | X'00' |  1   | Variable |    2     |
 *   +----+-----+-------+------+----------+----------+
 * An unknown ATYP throws; the caller answers 0x08 (address type not supported).
 */
/** Parses a request (any command: the caller answers 0x07 to those it does not support). */
export function parseRequest(buf: Buffer): Parsed<SocksRequest> | undefined {
  if (buf.length < 4) return undefined;
  if (buf[0] !== SOCKS_VERSION) throw new SocksParseError(`bad version ${buf[0]}`);
  const command = buf[1]!;
  if (buf[2] !== 0x00) throw new SocksParseError('reserved byte not zero');
  const addr = parseAddress(buf, 3);
  if (!addr) return undefined;
  return { value: { command, ...addr.value }, length: 3 + addr.length };
}

/** Encodes a request. */
export function encodeRequest(command: number, host: string, port: number): Buffer {
  return Buffer.concat([Buffer.from([SOCKS_VERSION, command, 0x00]), encodeAddress(host, port)]);
}

/*
 * Reply (server -> client), RFC 1928 section 6:
 *   +----+-----+-------+------+----------+----------+
 *   |VER | REP |  RSV  | ATYP | BND.ADDR | BND.PORT |
 *   +----+-----+-------+------+----------+----------+
 *   | 1  |  1  | X'00' |  1   | Variable |    2     |
 *   +----+-----+-------+------+----------+----------+
 *   REP: 00 succeeded, 01 general SOCKS server failure, 02 connection not allowed by ruleset,
 *        03 network unreachable, 04 host unreachable, 05 connection refused, 06 TTL expired,
 *        07 command not supported, 08 address type not supported.
 */
const REPLY_TEMPLATE = Buffer.from([SOCKS_VERSION, 0, 0x00, ATYP_IPV4, 0, 0, 0, 0, 0, 0]);

/** Encodes a reply; BND defaults to 0.0.0.0:0 (the gateway does not disclose the agent's socket). */
export function encodeReply(code: number, bindHost?: string, bindPort = 0): Buffer {
  if (bindHost === undefined) {
    const b = Buffer.from(REPLY_TEMPLATE);
    b[1] = code;
    return b;
  }
  return Buffer.concat([Buffer.from([SOCKS_VERSION, code, 0x00]), encodeAddress(bindHost, bindPort)]);
}

/** Parses a reply. */
export function parseReply(buf: Buffer): Parsed<{ code: number; bind: Destination }> | undefined {
  if (buf.length < 4) return undefined;
  if (buf[0] !== SOCKS_VERSION) throw new SocksParseError(`bad version ${buf[0]}`);
  const code = buf[1]!;
  const addr = parseAddress(buf, 3);
  if (!addr) return undefined;
  return { value: { code, bind: addr.value }, length: 3 + addr.length };
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
 * Maps an OS/socket error to a SOCKS reply code (the one place that does this).
 * ECONNREFUSED -> 05; EHOSTUNREACH, name resolution failures (ENOTFOUND, EAI_AGAIN) -> 04;
 * ENETUNREACH/ENETDOWN -> 03; ETIMEDOUT (connect timeout) -> 06 "TTL expired", which is what
 * RFC 1928 offers closest to "timed out" and what curl and other clients print as such;
 * EACCES/EPERM (policy) -> 02; anything else -> 01.
 */
export function replyCodeForError(err: unknown): number {
  const code = (err as { code?: string } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return REP_CONNECTION_REFUSED;
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
