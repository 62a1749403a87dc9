/**
 * Whole requests for the OpenAPI fuzz test: path segments, query strings, headers and bodies
 * built from an operation's parameters and body schema with the value generators of
 * `openapi-fuzz.ts`, including what no well-behaved client sends (bad percent-escapes, raw
 * number literals, malformed JSON, bytes that are not UTF-8, other content types). Test helper only.
 */
import { MAX_CENTS } from '@pm/money';
import fc from 'fast-check';
import {
  BAD_ESCAPES,
  type createGenerators,
  hostileString,
  maybe,
  NOT_TEXT,
  type Operation,
  type Parameter,
  RawJson,
  RawUrl,
  type Schema,
} from './openapi-fuzz.ts';

/** One generated request, ready for `app.inject`. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

type Generators = ReturnType<typeof createGenerators>;

/** Percent-encodes like encodeURIComponent, but writes a lone surrogate as its 3-byte (CESU) form instead of throwing. */
export function encodeComponent(s: string): string {
  let out = '';
  for (const ch of s) {
    const u = ch.charCodeAt(0);
    if (ch.length === 1 && u >= 0xd800 && u <= 0xdfff) {
      const bytes = [0xed, 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else out += encodeURIComponent(ch);
  }
  return out;
}

/** A generated value as it appears in a path segment or query string. */
function toUrlText(v: unknown): string {
  if (v instanceof RawUrl) return v.text;
  if (v instanceof RawJson) return encodeComponent(v.text);
  if (typeof v === 'string') return encodeComponent(v);
  if (v !== null && typeof v === 'object') return encodeComponent(toJsonText(v));
  return encodeComponent(String(v));
}

/** JSON text of a generated value; a RawJson is written as is. */
export function toJsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJsonText).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

const MALFORMED_JSON = [
  '{',
  '{"a":',
  '[1,2',
  'nul',
  '{"a":1}}',
  "{'a':1}",
  '{"a":1,}',
  '\u0000',
  '"\ud800"',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `"${'x'.repeat(200_000)}"`,
];

/** A body: a JSON value (serialized when the request is assembled) or raw bytes with a content type. */
type Body = { value: unknown } | { contentType?: string; payload: string | Buffer };

/** Whole-body faults: not JSON, not UTF-8, another content type, or empty. */
const rawBodyArb = (schema: Schema): fc.Arbitrary<Body> =>
  fc.oneof(
    fc.constantFrom(...MALFORMED_JSON).map((payload) => ({ contentType: 'application/json', payload })),
    fc
      .tuple(
        fc.constantFrom(...Object.keys(schema.properties ?? {}), 'memo'),
        fc.constantFrom([0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82]),
      )
      .map(([key, bytes]) => ({
        contentType: 'application/json',
        payload: Buffer.concat([
          Buffer.from(`{${JSON.stringify(key)}:"a`),
          Buffer.from(bytes),
          Buffer.from('"}'),
        ]),
      })),
    fc.constantFrom<Body>(
      { contentType: 'application/json', payload: '' },
      { contentType: 'text/plain', payload: 'balanceDeltaC=5' },
      { contentType: 'text/plain', payload: Buffer.from([0x61, 0xff]) },
      { contentType: 'application/x-www-form-urlencoded', payload: 'a=1' },
      { contentType: 'application/xml', payload: '<a/>' },
      { contentType: 'application/json; charset=latin1', payload: '{}' },
      { payload: '{}' },
    ),
  );

const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

/**
 * Requests for one operation, sent with `auth` headers; `knownIds` are ids that exist in the
 * database. A fifth are clean (valid parts, known ids) so the handlers run; most carry exactly
 * one fault in an otherwise valid request, so the fault reaches as deep as it can; the rest
 * have hostile parts anywhere.
 */
export function requestArb(
  op: Operation,
  gens: { clean: Generators; dirty: Generators },
  knownIds: string[],
  auth: Record<string, string>,
): fc.Arbitrary<FuzzRequest> {
  return fc
    .oneof(
      { weight: 1, arbitrary: partsArb(op, gens.clean, knownIds) },
      { weight: 3, arbitrary: singleFaultArb(op, gens.clean, knownIds) },
      { weight: 1, arbitrary: partsArb(op, gens.dirty, knownIds) },
    )
    .map((parts) => assemble(op, parts, auth));
}

interface Parts {
  path: unknown[];
  query: (unknown[] | null)[];
  extraQuery: [unknown, string] | null;
  headers: (string | null)[];
  body: Body | null | undefined;
}

const params = (op: Operation, where: Parameter['in']) => op.params.filter((p) => p.in === where);

const BAD_SEGMENTS = [...BAD_ESCAPES, 'a'.repeat(150)];

function partsArb(op: Operation, gens: Generators, knownIds: string[]): fc.Arbitrary<Parts> {
  const { dirty } = gens;
  const segment = (p: Parameter) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom<unknown>(...knownIds) },
      { weight: dirty ? 3 : 1, arbitrary: gens.any(p.schema, 0) },
      { weight: dirty ? 1 : 0, arbitrary: fc.constantFrom<unknown>(...BAD_SEGMENTS) },
    );
  const queryValue = (p: Parameter) =>
    fc.oneof(
      { weight: 6, arbitrary: gens.any(p.schema, 0) },
      { weight: dirty ? 1 : 0, arbitrary: fc.constantFrom<unknown>(...BAD_ESCAPES) },
    );
  const query = fc.tuple(
    ...params(op, 'query').map((p) =>
      maybe(fc.array(queryValue(p), { minLength: 1, maxLength: dirty ? 2 : 1 }), p.required ? 19 : 1, 1),
    ),
  );
  const extraQuery = dirty ? maybe(extraQueryArb, 1, 7) : fc.constant(null);
  const headers = fc.tuple(...params(op, 'header').map((p) => maybe(headerValue(gens, p, dirty), 1, 1)));
  const body: fc.Arbitrary<Body | null | undefined> =
    op.body === undefined
      ? fc.constant(undefined)
      : maybe(
          fc.oneof(
            { weight: 8, arbitrary: gens.any(op.body, 0).map((value) => ({ value })) },
            { weight: dirty ? 3 : 0, arbitrary: rawBodyArb(op.body) },
          ),
          11,
          1,
        );
  return fc.record({ path: fc.tuple(...params(op, 'path').map(segment)), query, extraQuery, headers, body });
}

const extraQueryArb = fc.tuple(
  fc.oneof(hostileString, fc.constantFrom<unknown>(...BAD_ESCAPES)),
  hostileString,
);

const headerValue = (gens: Generators, p: Parameter, dirty: boolean) =>
  (dirty
    ? fc.oneof(gens.validString(p.schema ?? {}), hostileString)
    : gens.validString(p.schema ?? {})
  ).filter((v) => HEADER_SAFE.test(v) && v.length < 8000);

const replaced = <T>(list: readonly T[], i: number, v: T): T[] => list.map((x, j) => (j === i ? v : x));

/** Paths to every value inside a JSON value, the root included. */
function valuePaths(v: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (v === null || typeof v !== 'object') return out;
  const entries: [string | number, unknown][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : Object.entries(v);
  for (const [k, x] of entries) valuePaths(x, [...path, k], out);
  return out;
}

function setAt(v: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[key] = setAt(copy[key], rest, value);
  return copy;
}

/** A clean request with exactly one fault: one parameter, one body value, or the body as a whole. */
function singleFaultArb(op: Operation, gens: Generators, knownIds: string[]): fc.Arbitrary<Parts> {
  return partsArb(op, gens, knownIds).chain((parts) => {
    const faults: fc.Arbitrary<Parts>[] = [
      fc
        .constant({ ...parts, extraQuery: null })
        .chain((q) => extraQueryArb.map((e) => ({ ...q, extraQuery: e }))),
    ];
    params(op, 'path').forEach((p, i) => {
      faults.push(
        fc
          .oneof(
            { weight: 1, arbitrary: gens.hostile(p.schema) },
            { weight: 1, arbitrary: fc.constantFrom<unknown>(...BAD_SEGMENTS) },
          )
          .map((v) => ({ ...parts, path: replaced(parts.path, i, v) })),
      );
    });
    params(op, 'query').forEach((p, i) => {
      const values = fc.oneof(
        { weight: 4, arbitrary: gens.hostile(p.schema).map((v) => [v]) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(...BAD_ESCAPES).map((v) => [v]) },
        { weight: 1, arbitrary: fc.tuple(gens.any(p.schema, 0), gens.any(p.schema, 0)) },
      );
      faults.push(values.map((v) => ({ ...parts, query: replaced(parts.query, i, v) })));
    });
    params(op, 'header').forEach((p, i) => {
      faults.push(
        headerValue(gens, p, true).map((v) => ({ ...parts, headers: replaced(parts.headers, i, v) })),
      );
    });
    if (op.body !== undefined) {
      const schema = op.body;
      faults.push(rawBodyArb(schema).map((body) => ({ ...parts, body })));
      const body = parts.body;
      if (body && 'value' in body) {
        faults.push(
          fc
            .constantFrom(...valuePaths(body.value))
            .chain((path) =>
              gens
                .hostile(gens.schemaAt(schema, path))
                .map((v) => ({ ...parts, body: { value: setAt(body.value, path, v) } })),
            ),
        );
      }
    }
    return fc.oneof(...faults);
  });
}

const TEXT_PROBES = [...NOT_TEXT.slice(1, 3), '0000-01-01', '9999-12-31T23:59:59-14:00', 'x'.repeat(10_000)];
const URL_PROBES: unknown[] = [...TEXT_PROBES, new RawUrl('%FF'), new RawUrl('%ED%A0%80')];
const VALUE_PROBES: unknown[] = [
  ...TEXT_PROBES,
  MAX_CENTS + 1,
  -MAX_CENTS - 1,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  new RawJson('9007199254740993'),
  new RawJson('1e400'),
  null,
  {},
];

/**
 * Fixed probes run before the generated requests, so every route meets each named hostile
 * class whatever its share of the runs: a NUL, an unpaired surrogate, out-of-range dates, a long
 * string and bad escapes in each path and query parameter, and those plus numbers past the
 * money and integer bounds in each top-level body field, each in an otherwise clean request.
 */
export function probeRequests(
  op: Operation,
  gens: { clean: Generators },
  knownIds: string[],
  auth: Record<string, string>,
): FuzzRequest[] {
  const [base] = fc.sample(partsArb(op, gens.clean, knownIds), { numRuns: 1, seed: 42 });
  if (!base) return [];
  const out: Parts[] = [];
  params(op, 'path').forEach((_, i) => {
    for (const v of URL_PROBES) out.push({ ...base, path: replaced(base.path, i, v) });
  });
  params(op, 'query').forEach((_, i) => {
    for (const v of URL_PROBES) out.push({ ...base, query: replaced(base.query, i, [v]) });
  });
  const body = base.body && 'value' in base.body ? base.body.value : {};
  const value = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
  for (const key of Object.keys(op.body?.properties ?? {})) {
    for (const v of VALUE_PROBES) out.push({ ...base, body: { value: setAt(value, [key], v) } });
  }
  return out.map((parts) => assemble(op, parts, auth));
}

function assemble(op: Operation, r: Parts, auth: Record<string, string>): FuzzRequest {
  let url = op.path;
  params(op, 'path').forEach((p, i) => {
    url = url.replace(`{${p.name}}`, toUrlText(r.path[i]));
  });
  const pairs: string[] = [];
  params(op, 'query').forEach((p, i) => {
    for (const v of r.query[i] ?? []) pairs.push(`${encodeComponent(p.name)}=${toUrlText(v)}`);
  });
  if (r.extraQuery) pairs.push(`${toUrlText(r.extraQuery[0])}=${toUrlText(r.extraQuery[1])}`);
  if (pairs.length > 0) url += `?${pairs.join('&')}`;
  const headers: Record<string, string> = { ...auth };
  params(op, 'header').forEach((p, i) => {
    const v = r.headers[i];
    if (v !== null && v !== undefined) headers[p.name] = v;
  });
  const req: FuzzRequest = { method: op.method, url, headers };
  if (r.body && 'value' in r.body) {
    headers['content-type'] = 'application/json';
    req.payload = toJsonText(r.body.value);
  } else if (r.body) {
    if (r.body.contentType) headers['content-type'] = r.body.contentType;
    req.payload = r.body.payload;
  }
  return describable(req);
}

/** Shows a request in fast-check's counterexamples as method, URL and body, without the token. */
function describable(req: FuzzRequest): FuzzRequest {
  return Object.defineProperty(req, fc.toStringMethod, {
    value: () => describeRequest(req),
    enumerable: false,
  });
}

/** Method, URL, content type and the start of the body. */
export function describeRequest(req: FuzzRequest): string {
  const body =
    req.payload === undefined
      ? ''
      : ` ${req.headers['content-type'] ?? '(no content type)'} ${JSON.stringify(
          Buffer.isBuffer(req.payload)
            ? `<bytes ${req.payload.toString('hex').slice(0, 120)}>`
            : req.payload.slice(0, 300),
        )}`;
  return `${req.method} ${req.url.slice(0, 300)}${body}`;
}
