import type { FastifyRequest } from 'fastify';

/**
 * `Cache-Control: no-cache` (or `Pragma: no-cache`) asks for an answer as it is now, not as shared
 * a moment ago (the shop's and the static shop's windowed reads).
 */
export function wantsFresh(req: FastifyRequest): boolean {
  const ask = `${req.headers['cache-control'] ?? ''},${req.headers.pragma ?? ''}`;
  return /(^|[\s,])no-cache($|[\s,=])/i.test(ask);
}
