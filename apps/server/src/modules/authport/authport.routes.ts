import { AppError } from '@pm/contracts';
import { ZAuthPortCreateBody, ZAuthPortParams } from '@pm/contracts/leases';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthPortService, Caller } from './authport.service.ts';

export interface AuthPortRoutesDeps {
  authport: Pick<AuthPortService, 'createAuthPort'>;
  /** The signed-in caller of a request; throws UNAUTHENTICATED (the app's auth layer provides it). */
  getCaller(request: FastifyRequest): Caller | Promise<Caller>;
}

function parse<T extends z.ZodType>(schema: T, value: unknown, context: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [context, ...(issue?.path ?? []).map(String)].join('.');
  throw new AppError('VALIDATION_FAILED', {
    userMessage: `${field}: ${issue?.message ?? 'Invalid value'}`,
    details: { field },
  });
}

/** `POST /authport/create/{id}`: body is the whitelist (a JSON string, or `{ whitelist }`). */
export function register(app: FastifyInstance, deps: AuthPortRoutesDeps): void {
  app.post('/authport/create/:id', async (request) => {
    const caller = await deps.getCaller(request);
    const { id } = parse(ZAuthPortParams, request.params, 'params');
    const body = parse(ZAuthPortCreateBody, request.body ?? '', 'whitelist');
    const whitelist = typeof body === 'string' ? body : body.whitelist;
    return deps.authport.createAuthPort(caller, id, whitelist);
  });
}
