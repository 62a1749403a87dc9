/**
 * Pure SOCKS5 (RFC 1928) and username/password subnegotiation (RFC 1929) parsing and encoding.
 * Buffer in, typed frame out. Parsers return `undefined` when the buffer holds an incomplete
 * frame (read more and call again) and throw `SocksParseError` when it can never be valid.
 */
import {
  ATYP_IPV4,
  type Destination,
  encodeAddress,
  type Parsed,
  parseAddress,
  SocksParseError,
} from '@pm/tunnel';

// The address and reply codes are the tunnel's too (OPEN, OPEN_FAIL): they live in @pm/tunnel.
export {
  type AddressType,
  ATYP_DOMAIN,
  ATYP_IPV4,
  ATYP_IPV6,
  type Destination,
  encodeAddress,
  type Parsed,
  parseAddress,
  REP_ADDRESS_TYPE_NOT_SUPPORTED,
  REP_COMMAND_NOT_SUPPORTED,
  REP_CONNECTION_REFUSED,
  REP_GENERAL_FAILURE,
  REP_HOST_UNREACHABLE,
  REP_NETWORK_UNREACHABLE,
  REP_NOT_ALLOWED,
  REP_SUCCEEDED,
  REP_TTL_EXPIRED,
  replyCodeForError,
  replyText,
  SocksParseError,
} from '@pm/tunnel';

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
