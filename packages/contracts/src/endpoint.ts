import { z } from 'zod';
import { ZErrorBody } from './common.ts';
import type { FeatureErrorCode } from './error-codes.ts';

/**
 * The endpoint contract: each operation declared once, with method, path, schemas, operationId,
 * summary and visibility. The server registers its routes from it (`apps/server/src/platform/endpoint.ts`),
 * the web app calls it through `callEndpoint`, and the public OpenAPI document (`GET /api/openapi.json`)
 * and the API page are built from the routes it declares.
 *
 * - `public`: a customer operation that is also served under `/api` (rules §7) to a bearer token or an
 *   API key; the public document lists only these (and the token endpoint).
 * - `customer`: the signed-in customer's own routes (the web app's token only).
 * - `staff`: staff routes.
 * - `anonymous`: served without a sign-in (the price list, the spec's open reads).
 *
 * Each area declares its operations in `endpoints/<area>.ts`; `ENDPOINTS` (endpoints.ts) joins them.
 */
export type Visibility = 'public' | 'customer' | 'staff' | 'anonymous';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  /** Unique; the public document's operationId and the generated clients' method name. */
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path (`/leases/{id}`); public operations are also served at `/api` + path. */
  path: string;
  /** The method under `/api` where rules §7 names another (auto-renew is a GET there). */
  publicMethod?: HttpMethod;
  summary: string;
  description?: string;
  visibility: Visibility;
  /**
   * Which listener serves it: the market API (default), the Ports API's own base address (rules §7),
   * or the identity host (`apps/identity`: the admin auth API and the reset-mail request).
   */
  api?: 'market' | 'ports' | 'identity';
  tags: string[];
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  headers?: z.ZodType;
  /** Status -> body schema; the success status first. */
  response: Record<number, z.ZodType>;
  /**
   * The feature error codes its error answers may carry (`errorCode`, joined from the families of
   * error-codes.ts); none when absent. `defineEndpoint` narrows every error schema's `errorCode`
   * to them, so the OpenAPI documents list them and the serializer refuses any other.
   */
  errorCodes?: readonly FeatureErrorCode[];
  /** What the API page shows as the request and the answer (public operations). */
  example?: {
    params?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
    answer: unknown;
  };
}

/**
 * An error schema with its `errorCode` narrowed to `codes` (left out when there are none). Only
 * the object schemas that have the field (ZErrorBody and its extensions) change.
 */
function narrowErrorCode(schema: z.ZodType, codes: readonly FeatureErrorCode[]): z.ZodType {
  if (!(schema instanceof z.ZodObject) || !('errorCode' in schema.shape)) return schema;
  return codes.length > 0
    ? schema.extend({ errorCode: z.enum([...new Set(codes)]).optional() })
    : schema.omit({ errorCode: true });
}

/**
 * Declares an operation. Its error answers' `errorCode` is narrowed to the operation's own
 * `errorCodes` (the schema types keep the wider enum; `ErrorCodeOf` is the narrow type).
 */
export function defineEndpoint<const E extends Endpoint>(e: E): E {
  const codes = e.errorCodes ?? [];
  const response = Object.fromEntries(
    Object.entries(e.response).map(([status, schema]) => [
      status,
      Number(status) >= 300 ? narrowErrorCode(schema, codes) : schema,
    ]),
  );
  return { ...e, response };
}

/** The feature error codes an operation declares (`never` when it declares none). */
export type ErrorCodeOf<E extends Endpoint> = E['errorCodes'] extends readonly (infer C)[] ? C : never;

/**
 * The `errorCode` of an error answer's body when it is one the operation declares, else undefined:
 * what a client switches on (exhaustively: the type lists exactly the operation's codes).
 */
export function errorCodeOf<E extends Endpoint>(e: E, body: unknown): ErrorCodeOf<E> | undefined {
  const code =
    typeof body === 'object' && body !== null ? (body as { errorCode?: unknown }).errorCode : undefined;
  // The cast names what the search proves: a value of `e.errorCodes`, which is `ErrorCodeOf<E>`
  // (TypeScript reads the generic list through its constraint, the whole FeatureErrorCode).
  return (e.errorCodes ?? []).find((c) => c === code) as ErrorCodeOf<E> | undefined;
}

/**
 * The `default` of a switch over an operation's error codes: it compiles only when every code has
 * its case, so a code added to the operation fails the compiler until the client handles it.
 */
export function unhandledErrorCode(code: never): never {
  throw new Error(`unhandled error code ${String(code)}`);
}

/** The statuses an operation's success answer may have; each operation declares exactly one. */
export type SuccessStatus = 200 | 201 | 202 | 204;
/** The success status an operation declares (`201` for a purchase, `204` for a deletion). */
export type SuccessStatusOf<E extends Endpoint> = keyof E['response'] & SuccessStatus;
/** The schema of an operation's success answer. */
export type SuccessSchemaOf<E extends Endpoint> = E['response'][SuccessStatusOf<E>];
/**
 * An operation's success answer as values: what a server handler returns (the serializer encodes
 * it with the schema, which takes the schema's output type) and what a client gets back after
 * parsing the answer with the same schema.
 */
export type SuccessOf<E extends Endpoint> =
  SuccessSchemaOf<E> extends z.ZodType ? z.output<SuccessSchemaOf<E>> : never;

/**
 * What a query string or a path carries for a schema: its input type, but where the schema coerces
 * a string (`z.coerce.number()`, whose input is `unknown`), the value it coerces to, so a typo'd
 * or mistyped value still fails the compiler. Each value is sent as `String(value)`.
 */
export type WireFields<S extends z.ZodType> = {
  [K in keyof z.input<S>]: unknown extends z.input<S>[K]
    ? K extends keyof z.output<S>
      ? z.output<S>[K]
      : never
    : z.input<S>[K];
};

/** Nothing at all, as a type (`{}`). */
type Nothing = Record<never, never>;
/** A part the caller must send, or may leave out when the schema accepts it absent or empty. */
type Part<K extends string, T> = undefined extends T
  ? { [P in K]?: T }
  : Nothing extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

/** The request parts an operation declares, typed as its schemas accept them; undeclared parts are refused. */
export type EndpointRequest<E extends Endpoint> = (E['params'] extends z.ZodType
  ? Part<'params', WireFields<E['params']>>
  : { params?: never }) &
  (E['querystring'] extends z.ZodType ? Part<'query', WireFields<E['querystring']>> : { query?: never }) &
  (E['body'] extends z.ZodType ? Part<'body', z.input<E['body']>> : { body?: never });

/** The body an operation takes, as its schema accepts it (what a form builds before the call). */
export type BodyOf<E extends Endpoint> = E['body'] extends z.ZodType ? z.input<E['body']> : never;
/** The query an operation takes, as the URL carries it. */
export type QueryOf<E extends Endpoint> = E['querystring'] extends z.ZodType
  ? WireFields<E['querystring']>
  : never;

/** The fields a handler gets, as the schemas parse them. */
type Parsed<T> = T extends z.ZodType ? z.output<T> : undefined;
export interface EndpointInput<E extends Endpoint> {
  params: Parsed<E['params']>;
  query: Parsed<E['querystring']>;
  body: Parsed<E['body']>;
  headers: Parsed<E['headers']>;
}

/**
 * The error answers every signed-in operation may give: 400 (input refused, `field` names it), 401
 * (no valid token), 403 (blocked, not staff, or under `/api` no bearer token), 429 (too many calls)
 * and 503 (the sign-in host's keys cannot be fetched to check the token, `Retry-After`).
 */
export const errors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 429: ZErrorBody, 503: ZErrorBody };

/** What each error status means, as the OpenAPI documents describe the answer. */
export const ERROR_STATUS_MEANING: Record<number, string> = {
  400: 'Invalid request: `message` says why and `field` names the input at fault',
  401: 'No valid bearer token (missing, expired, or issued before a password change)',
  402: 'Not enough funds on the balance',
  403: 'Forbidden: a blocked account, a staff operation, or under `/api` no bearer token',
  404: 'Not found (or not yours)',
  409: 'Refused in the current state: `errorCode` says why',
  429: 'Too many calls: wait for `Retry-After` seconds',
  500: 'Something went wrong on our side (`requestId` identifies it in the logs)',
  503: 'Temporarily unavailable: try again after `Retry-After` seconds',
};
