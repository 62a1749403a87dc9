import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this go as they are: the header and the work cost more than they save. */
export const COMPRESS_MIN_BYTES = 1024;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const COMPRESSIBLE = /json|text\/|javascript|xml|csv/;

/**
 * The encoding to answer with for an Accept-Encoding header: brotli, else gzip, else none. A coding
 * with `q=0` is refused; `*` stands for any coding not named.
 */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | undefined {
  if (!header) return undefined;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    if (name) q.set(name, Number.isFinite(value) ? value : 0);
  }
  const accepts = (coding: string) => (q.get(coding) ?? q.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return undefined;
}

/**
 * A Buffer answered again (a shared page's bytes, agents.routes.ts) compressed once per coding:
 * dropped with the Buffer.
 */
const compressedOf = new WeakMap<Buffer, Partial<Record<'br' | 'gzip', Promise<Buffer>>>>();

function compress(payload: string | Buffer, encoding: 'br' | 'gzip', size: number): Promise<Buffer> {
  return encoding === 'br'
    ? brotliAsync(payload, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: size },
      })
    : gzipAsync(payload, { level: 6 });
}

/** The payload compressed: a Buffer's result kept for the next answer of the same Buffer. */
export function compressOnce(
  payload: string | Buffer,
  encoding: 'br' | 'gzip',
  size: number,
): Promise<Buffer> {
  if (typeof payload === 'string') return compress(payload, encoding, size);
  const kept = compressedOf.get(payload) ?? {};
  compressedOf.set(payload, kept);
  const done = kept[encoding] ?? compress(payload, encoding, size);
  kept[encoding] = done;
  // A failure is not kept: the next answer tries again.
  done.catch(() => delete kept[encoding]);
  return done;
}

/**
 * Compresses the API's answers of at least `minBytes` (JSON, CSV, text) by the caller's
 * Accept-Encoding: brotli at quality 4 (about gzip's speed, smaller), else gzip level 6, off the
 * event loop (zlib's thread pool); a Buffer answered again is compressed once. Streams, HEAD answers
 * and bodies already encoded are left alone.
 */
export function registerCompression(app: FastifyInstance, minBytes = COMPRESS_MIN_BYTES): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'HEAD' || reply.hasHeader('content-encoding')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
    const size = Buffer.byteLength(payload);
    if (size < minBytes) return payload;
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = pickEncoding(req.headers['accept-encoding']);
    if (!encoding) return payload;
    const body = await compressOnce(payload, encoding, size);
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return body;
  });
}
