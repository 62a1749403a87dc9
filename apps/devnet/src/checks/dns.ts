/**
 * A DNS server on a loopback UDP port answering DNS blacklist zones (RFC 5782) the way the real
 * ones do: an A query for `4.3.2.1.<zone>` answers the listing's 127.0.0.x code (or an error code
 * such as 127.255.255.254), anything else NXDOMAIN. Only A and TXT questions of class IN; the
 * codec is the few fields of RFC 1035 this needs.
 */
import { createSocket, type Socket } from 'node:dgram';

/** zone -> address -> the answer (127.0.0.2 listed, 127.255.255.254 an error code, …). */
export type DnsblListings = Record<string, Record<string, string>>;

export interface DnsblServer {
  /** `127.0.0.1:port`, what `Resolver.setServers` takes. */
  server: string;
  port: number;
  /** Replaces the listings (tests). */
  setListings(listings: DnsblListings): void;
  /** Queries answered so far. */
  queries(): number;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_TXT = 16;
const RCODE_NXDOMAIN = 3;
const RCODE_FORMERR = 1;

/** The question of a query: its name, type and the byte offset after it; undefined when malformed. */
export function parseQuestion(msg: Buffer): { name: string; type: number; end: number } | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  for (let i = 0; i < 128; i++) {
    const len = msg[at];
    if (len === undefined || len > 63 || at + 1 + len > msg.length) return undefined;
    at += 1;
    if (len === 0) break;
    labels.push(msg.toString('latin1', at, at + len));
    at += len;
  }
  if (at + 4 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at), end: at + 4 };
}

/** The address a blacklist query name asks about in `zone` (IPv4 only); undefined otherwise. */
function addressIn(name: string, zone: string): string | undefined {
  if (!name.endsWith(`.${zone}`)) return undefined;
  const octets = name.slice(0, -zone.length - 1).split('.');
  return octets.length === 4 ? octets.reverse().join('.') : undefined;
}

/** An answer to `query`: its question echoed, then `answers` (A: dotted quads, TXT: text). */
export function encodeResponse(
  query: Buffer,
  q: { end: number; type: number } | undefined,
  rcode: number,
  answers: string[],
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.length >= 2 ? query.readUInt16BE(0) : 0, 0);
  const rd = query.length >= 3 ? query[2]! & 0x01 : 0;
  header[2] = 0x80 | 0x04 | rd; // QR, AA, RD copied
  header[3] = 0x80 | rcode; // RA
  header.writeUInt16BE(q ? 1 : 0, 4);
  header.writeUInt16BE(answers.length, 6);
  const question = q ? query.subarray(12, q.end) : Buffer.alloc(0);
  const records = answers.map((a) => {
    const rdata =
      q?.type === TYPE_TXT
        ? Buffer.concat([Buffer.from([Math.min(255, a.length)]), Buffer.from(a.slice(0, 255), 'latin1')])
        : Buffer.from(a.split('.').map(Number));
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(q?.type ?? TYPE_A, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, question, ...records]);
}

/** Starts the stand-in; port 0 picks a free one. */
export async function startDnsblServer(options: {
  host?: string;
  port?: number;
  listings: DnsblListings;
}): Promise<DnsblServer> {
  const host = options.host ?? '127.0.0.1';
  let listings = options.listings;
  let count = 0;
  const socket: Socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');

  function answer(msg: Buffer): Buffer {
    const q = parseQuestion(msg);
    if (!q) return encodeResponse(msg, undefined, RCODE_FORMERR, []);
    for (const [zone, entries] of Object.entries(listings)) {
      const ip = addressIn(q.name, zone);
      const code = ip === undefined ? undefined : entries[ip];
      if (code === undefined) continue;
      if (q.type === TYPE_A) return encodeResponse(msg, q, 0, [code]);
      if (q.type === TYPE_TXT) return encodeResponse(msg, q, 0, [`Listed by ${zone} (devnet)`]);
      return encodeResponse(msg, q, 0, []);
    }
    return encodeResponse(msg, q, RCODE_NXDOMAIN, []);
  }

  socket.on('message', (msg, rinfo) => {
    count++;
    socket.send(answer(msg), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port ?? 0, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const port = socket.address().port;
  return {
    server: `${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    setListings(next) {
      listings = next;
    },
    queries: () => count,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
