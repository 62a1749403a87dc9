/**
 * Request generators for the OpenAPI fuzz test, built from the document the app serves: for
 * every operation, requests that are mostly well-formed (so they reach the handlers) with
 * hostile parts mixed in at any depth: wrong types, missing and extra fields, NUL bytes, lone
 * surrogates, bad percent-escapes, huge strings, numbers at and past every bound, dates out of
 * range, malformed JSON and bodies that are not UTF-8. Test helper only.
 */
import { MAX_CENTS } from '@pm/money';
import fc from 'fast-check';

/** The part of JSON Schema (as @fastify/swagger emits it) the generators read. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: RequestBody }>>;
  components?: { schemas?: Record<string, Schema> };
}

interface RequestBody {
  content?: Record<string, { schema?: Schema }>;
}

/** One operation of the document. */
export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. `/accounts/{id}`. */
  path: string;
  params: Parameter[];
  body: Schema | undefined;
}

/** A JSON number written exactly as given (`1e400`, `9007199254740993`), which JSON.stringify cannot. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** A URL fragment sent without encoding (`%FF`, `%`), which encodeURIComponent cannot produce. */
export class RawUrl {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** Every operation in the document, with `$ref`s left for `deref`. */
export function listOperations(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: body ?? (BODY_METHODS.has(method) ? {} : undefined),
      });
    }
  }
  return ops;
}

export const HOSTILE_DATES = [
  '0000-01-01',
  '0000-12-31T23:59:59Z',
  '1969-12-31',
  '1999-12-31T23:59:59.999Z',
  '10000-01-01',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01',
  '9999-12-31T23:59:59-14:00',
  '2026-02-30',
  '2026-13-01',
];

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\ufffe\uffff',
  '💥',
  '../../etc/passwd',
  "'; DROP TABLE accounts; --",
  '%00',
  '__proto__',
  'constructor',
  'null',
  'NaN',
  '-1',
  '1e400',
  '9007199254740993',
];

/** Numbers at and past the product's bounds and the integer range, some only writable as raw JSON. */
const HOSTILE_NUMBERS: unknown[] = [
  0,
  -0,
  0.5,
  -1,
  MAX_CENTS,
  MAX_CENTS + 1,
  -MAX_CENTS,
  -MAX_CENTS - 1,
  2 ** 31,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 63,
  -(2 ** 63),
  1e308,
  Number.MIN_VALUE,
  new RawJson('9007199254740993'),
  new RawJson('1e400'),
  new RawJson('-1e400'),
  new RawJson('100000000000.0000001'),
  new RawJson('1E2'),
];

export const BAD_ESCAPES = ['%FF', '%', '%E2%82', '%ZZ', '%00', '%ED%A0%80', '%C0%80', 'a%0'].map(
  (s) => new RawUrl(s),
);

/** What PostgreSQL cannot store (NUL) and what is not text (unpaired surrogates). */
export const NOT_TEXT = ['\u0000', 'a\u0000b', '\ud800', 'x\udfff'];

/** Arbitrary strings that no schema should let through to the database unchecked. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NOT_TEXT) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_DATES) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom(200, 201, 1_000, 100_000).map((n) => 'x'.repeat(n)) },
);

/**
 * `arb` with weight `present`, null with weight `absent`. (fc.option's bias draws null far more
 * often than its `freq` says in the first runs, which are most of a short run.)
 */
export const maybe = <T>(arb: fc.Arbitrary<T>, present: number, absent: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: absent, arbitrary: fc.constant(null) }, { weight: present, arbitrary: arb });

/** Resolves a local `$ref` against the document's components. */
function deref(doc: OpenApiDoc, s: Schema | undefined, depth = 0): Schema {
  if (!s) return {};
  if (s.$ref && depth < 10) {
    const name = s.$ref.replace(/^#\/components\/schemas\//, '');
    return deref(doc, doc.components?.schemas?.[name], depth + 1);
  }
  return s;
}

const bound = (v: number | boolean | undefined) => (typeof v === 'number' ? v : undefined);

/**
 * Builds value generators for one document and a pool of ids that exist in the database. Clean
 * ones make valid values only (so requests reach the handlers); dirty ones mix hostile values in
 * at any depth and now and then drop a key or add one.
 */
export function createGenerators(doc: OpenApiDoc, knownIds: string[], o: { dirty: boolean }) {
  const validString = (s: Schema): fc.Arbitrary<string> => {
    const min = s.minLength ?? 0;
    const max = Math.min(s.maxLength ?? 40, 40);
    const fits = (v: string) => v.length >= min && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);
    const options: fc.Arbitrary<string>[] = [
      fc.string({ minLength: Math.min(min, max), maxLength: max }),
      fc.constantFrom(...knownIds, '2026-11-21', '2000-01-01', '9999-12-31T23:59:59Z').filter(fits),
    ];
    if (s.pattern) {
      try {
        // The pattern says the most about the field: weighted as much as the other options together.
        const matching = fc.stringMatching(new RegExp(s.pattern)).filter(fits);
        options.push(matching, matching);
      } catch {
        // A pattern JavaScript cannot compile: plain strings only.
      }
    }
    return fc.oneof(...options);
  };

  const validNumber = (s: Schema, isInt: boolean): fc.Arbitrary<number> => {
    const lo = Math.max(bound(s.minimum) ?? bound(s.exclusiveMinimum) ?? -1e6, -Number.MAX_SAFE_INTEGER);
    const hi = Math.min(bound(s.maximum) ?? bound(s.exclusiveMaximum) ?? 1e6, Number.MAX_SAFE_INTEGER);
    if (!isInt) return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
    const [a, b] = [Math.ceil(lo), Math.floor(hi)];
    return fc.oneof(
      fc.integer({ min: Math.max(a, -1000), max: Math.max(Math.min(b, 1000), Math.max(a, -1000)) }),
      fc.integer({ min: a, max: b }),
      fc.constantFrom(a, b),
    );
  };

  /** Values just outside, and at, the schema's own bounds. */
  const edges = (s: Schema): unknown[] => {
    const out: unknown[] = [];
    for (const v of [bound(s.minimum), bound(s.exclusiveMinimum)]) if (v !== undefined) out.push(v, v - 1);
    for (const v of [bound(s.maximum), bound(s.exclusiveMaximum)]) if (v !== undefined) out.push(v, v + 1);
    if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength), 'x'.repeat(s.maxLength + 1));
    if (s.maxItems !== undefined) out.push(Array.from({ length: s.maxItems + 1 }, () => 'x'));
    if (s.enum) out.push(`${String(s.enum[0])}x`, String(s.enum[0]).toUpperCase(), 'unknown');
    return out;
  };

  /** A value that is wrong for `s`: its edges, another type, a hostile string, date or number. */
  const hostile = (raw: Schema | undefined): fc.Arbitrary<unknown> => {
    const s = deref(doc, raw);
    const edge = edges(s);
    const isText =
      s.type === undefined || s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'));
    return fc.oneof(
      { weight: 3, arbitrary: hostileString },
      // Many strings are dates to the handler (the schema may only say "string"): out-of-range ones often.
      { weight: isText ? 3 : 0, arbitrary: fc.constantFrom(...HOSTILE_DATES) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_NUMBERS) },
      { weight: edge.length > 0 ? 3 : 0, arbitrary: fc.constantFrom(...(edge.length > 0 ? edge : [null])) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { a: 1 }) },
    );
  };

  const valid = (raw: Schema | undefined, depth: number): fc.Arbitrary<unknown> => {
    const s = deref(doc, raw);
    if (s.const !== undefined) return fc.constant(s.const);
    if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives && alternatives.length > 0) return fc.oneof(...alternatives.map((a) => any(a, depth)));
    if (s.allOf && s.allOf.length > 0) return any(s.allOf[0], depth);
    const types = Array.isArray(s.type) ? [...s.type] : s.type ? [s.type] : s.properties ? ['object'] : [];
    if (s.nullable) types.push('null');
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    return fc.oneof(...types.map((t) => ofType(s, t, depth)));
  };

  const ofType = (s: Schema, type: string, depth: number): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return validString(s);
      case 'integer':
        return validNumber(s, true);
      case 'number':
        return validNumber(s, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        if (depth > 4) return fc.constant([]);
        return fc.array(any(s.items, depth + 1), {
          minLength: Math.min(s.minItems ?? 0, 4),
          maxLength: Math.max(Math.min(s.maxItems ?? 4, 4), Math.min(s.minItems ?? 0, 4)),
        });
      case 'object':
        return object(s, depth);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  /** An object with its required keys, some optional ones, and now and then a key dropped or added. */
  const object = (s: Schema, depth: number): fc.Arbitrary<unknown> => {
    const props = s.properties ?? {};
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    // Built eagerly, so a schema that refers to itself stops here.
    if (depth <= 4) for (const [key, child] of Object.entries(props)) model[key] = any(child, depth + 1);
    const required = (s.required ?? []).filter((k) => k in model);
    const base = fc.record(model, { requiredKeys: required });
    if (!o.dirty) return base;
    return fc
      .tuple(
        base,
        maybe(fc.constantFrom(...Object.keys(props), 'missing'), 1, 7),
        maybe(fc.tuple(fc.oneof(hostileString, fc.constantFrom('extra', '__proto__')), hostile(s)), 1, 7),
      )
      .map(([value, drop, extra]) => {
        const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
        if (drop !== null) delete out[drop];
        if (extra !== null) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true });
        return out;
      });
  };

  /** Dirty: mostly a valid value for `s`, sometimes a hostile one (at this level or deeper). */
  const any = (s: Schema | undefined, depth: number): fc.Arbitrary<unknown> =>
    o.dirty
      ? fc.oneof({ weight: 5, arbitrary: valid(s, depth) }, { weight: 1, arbitrary: hostile(s) })
      : valid(s, depth);

  /** The schema of the value at `path` inside a value of `root` ({} when unknown). */
  const schemaAt = (root: Schema | undefined, path: readonly (string | number)[]): Schema => {
    let s = deref(doc, root);
    for (const key of path) {
      const alternatives = [s, ...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((a) => deref(doc, a));
      const next =
        typeof key === 'number'
          ? alternatives.find((a) => a.items)?.items
          : alternatives.find((a) => a.properties?.[key])?.properties?.[key];
      s = deref(doc, next);
    }
    return s;
  };

  return { any, hostile, schemaAt, validString, dirty: o.dirty };
}
