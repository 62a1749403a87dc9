/**
 * The API page's model of the public OpenAPI document (`GET /api/openapi.json`): its operations
 * (the token request first) with parameters and examples, and the curl line for each with the
 * visitor's own base addresses and email. Pure, so Node tests it.
 */

export interface DocParam {
  name: string;
  in: 'path' | 'query' | 'header' | 'form';
  required: boolean;
  type: string;
  description: string;
  example?: string;
}

export interface DocOperation {
  operationId: string;
  method: string;
  path: string;
  /** Where the path is served: the API's base address, or the sign-in host's for the token request. */
  baseUrl: string;
  summary: string;
  description: string;
  params: DocParam[];
  /** A JSON body's example, when the operation takes one. */
  bodyExample?: unknown;
  /** The success status and the answer's example. */
  answerStatus: string;
  answerExample?: unknown;
  /** The token request (form-encoded, needs no bearer token). */
  isToken: boolean;
}

/** What the curl lines fill in: the visitor's own addresses and email, and the public API client's id. */
export interface CurlContext {
  apiUrl: string;
  email: string;
  clientId: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function typeOf(schema: unknown): string {
  if (!isObj(schema)) return 'string';
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join(' | ');
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeOf).join(' | ');
  if (typeof schema.const === 'string') return JSON.stringify(schema.const);
  return typeof schema.type === 'string' ? schema.type : 'string';
}

function readParams(op: Json): DocParam[] {
  const list = Array.isArray(op.parameters) ? op.parameters.filter(isObj) : [];
  return list
    .filter((p) => p.in === 'path' || p.in === 'query' || (p.in === 'header' && p.name === 'idempotency-key'))
    .map((p) => ({
      name: String(p.name),
      in: p.in as DocParam['in'],
      required: p.required === true,
      type: typeOf(p.schema),
      description: typeof p.description === 'string' ? p.description : '',
      ...(p.example !== undefined ? { example: String(p.example) } : {}),
    }));
}

function formParams(schema: unknown): DocParam[] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(schema.properties).map(([name, s]) => ({
    name,
    in: 'form',
    required: required.has(name),
    type: typeOf(s),
    description: '',
  }));
}

/** The document's operations, the token request first, then in the document's order. */
export function readOperations(doc: unknown, apiUrl: string): DocOperation[] {
  const paths = isObj(doc) && isObj(doc.paths) ? doc.paths : {};
  const out: DocOperation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObj(item)) continue;
    const servers = Array.isArray(item.servers) ? item.servers.filter(isObj) : [];
    const baseUrl = typeof servers[0]?.url === 'string' ? servers[0].url : apiUrl;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const content = isObj(op.requestBody) && isObj(op.requestBody.content) ? op.requestBody.content : {};
      const form = content['application/x-www-form-urlencoded'];
      const body = content['application/json'];
      const responses = isObj(op.responses) ? op.responses : {};
      const answerStatus = Object.keys(responses).find((s) => s.startsWith('2')) ?? '200';
      const answer = isObj(responses[answerStatus]) ? responses[answerStatus] : {};
      const answerJson = isObj(answer.content) ? answer.content['application/json'] : undefined;
      out.push({
        operationId: String(op.operationId ?? `${method} ${path}`),
        method: method.toUpperCase(),
        path,
        baseUrl: baseUrl.replace(/\/+$/, ''),
        summary: String(op.summary ?? ''),
        description: String(op.description ?? ''),
        params: isObj(form) ? formParams(form.schema) : readParams(op),
        ...(isObj(body) && body.example !== undefined ? { bodyExample: body.example } : {}),
        answerStatus,
        ...(isObj(answerJson) && answerJson.example !== undefined
          ? { answerExample: answerJson.example }
          : {}),
        isToken: isObj(form),
      });
    }
  }
  return [...out.filter((o) => o.isToken), ...out.filter((o) => !o.isToken)];
}

/** One field of an answer, as the document describes it. */
export interface DocField {
  name: string;
  type: string;
  description: string;
}

/** `obj[k1][k2]…` when every step is an object, else undefined. */
function dig(value: unknown, ...keys: string[]): unknown {
  let at = value;
  for (const k of keys) at = isObj(at) ? at[k] : undefined;
  return at;
}

/**
 * The fields of a lease's `socks` (where and how to connect), with the document's description of
 * each, read from the lease list's answer; none when the document does not have it.
 */
export function readSocksFields(doc: unknown): DocField[] {
  const answer = dig(doc, 'paths', '/api/leases', 'get', 'responses', '200', 'content', 'application/json');
  const socks = dig(answer, 'schema', 'properties', 'leases', 'items', 'properties', 'socks', 'properties');
  if (!isObj(socks)) return [];
  return Object.entries(socks).map(([name, schema]) => ({
    name: `socks.${name}`,
    type: isObj(schema) && schema.type === 'array' ? `${typeOf(schema.items)}[]` : typeOf(schema),
    description: isObj(schema) && typeof schema.description === 'string' ? schema.description : '',
  }));
}

/** A shell word in single quotes. */
export const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The operation's URL with its example path and query values. */
export function exampleUrl(op: DocOperation): string {
  let path = op.path;
  const query = new URLSearchParams();
  for (const p of op.params) {
    if (p.example === undefined) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(p.example));
    if (p.in === 'query') query.set(p.name, p.example);
  }
  const qs = query.toString();
  return `${op.baseUrl}${path}${qs ? `?${qs}` : ''}`;
}

/** The form the token request sends, with the visitor's values (a public client: no secret). */
export function tokenForm(ctx: CurlContext): Record<string, string> {
  return {
    grant_type: 'password',
    client_id: ctx.clientId,
    username: ctx.email,
    password: 'YOUR_PASSWORD',
  };
}

/** A curl line a visitor can paste: `$TOKEN` is the token request's `access_token` or an API key. */
export function curlLine(op: DocOperation, ctx: CurlContext): string {
  if (op.isToken) {
    const form = Object.entries(tokenForm(ctx))
      .map(([k, v]) => `--data-urlencode ${shellQuote(`${k}=${v}`)}`)
      .join(' \\\n  ');
    return `curl -X POST ${shellQuote(`${op.baseUrl}${op.path}`)} \\\n  ${form}`;
  }
  const parts = [`curl -X ${op.method} ${shellQuote(exampleUrl(op))}`, `-H "Authorization: Bearer $TOKEN"`];
  if (op.bodyExample !== undefined) {
    parts.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(op.bodyExample))}`);
  }
  return parts.join(' \\\n  ');
}
