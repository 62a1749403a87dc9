/**
 * The shop's filter (rules §3 "Filter fields", rules §5): its defaults, how it lives in the address
 * (`/shop?cc=GB&city=London&page=2`), and how it becomes a `GET /agents` query. Pure, so Node tests it.
 */
import {
  DEFAULT_SHOP_COUNTRY,
  MAX_SEARCH_RADIUS_MI,
  RADIUS_SEARCH_COUNTRIES,
  SHOP_PAGE_SIZES,
} from '@pm/contracts';

export type LeaseTypeFilter = 'any' | 'private' | 'shared';
export type ConnFilter = 'any' | 'wifi' | 'cell';
export type AgeFilter = 'any' | 'new' | 'old';

export interface ShopFilter {
  cc: string;
  reg: string;
  city: string;
  zip: string;
  isp: string;
  /** The IP prefix as typed ("198.51"); parseIpPrefix turns it into ip1/ip2. */
  ip: string;
  /** Minimum clean score 1-10; null is any. */
  stars: number | null;
  type: LeaseTypeFilter;
  conn: ConnFilter;
  age: AgeFilter;
  /** Advanced Search: centre postal code (upper case) and radius in miles (0 = none). */
  geozip: string;
  georad: number;
}

export interface ShopPaging {
  page: number;
  rowsPerPage: number;
}

export const DEFAULT_ROWS_PER_PAGE: number = SHOP_PAGE_SIZES[0];

/** No filter: every proxy of `cc`. */
export function emptyFilter(cc: string = DEFAULT_SHOP_COUNTRY): ShopFilter {
  return {
    cc,
    reg: '',
    city: '',
    zip: '',
    isp: '',
    ip: '',
    stars: null,
    type: 'any',
    conn: 'any',
    age: 'any',
    geozip: '',
    georad: 0,
  };
}

/** True when nothing but the country is set. */
export const isEmptyFilter = (f: ShopFilter): boolean =>
  JSON.stringify({ ...f, cc: '' }) === JSON.stringify(emptyFilter(''));

/**
 * The IP filter of rules §5: the text split on dots; the first part counts when it is a number above 0
 * and below 256, the second when it is a number from 0 to 255; a part that fails is ignored.
 */
export function parseIpPrefix(text: string): { ip1?: number; ip2?: number } {
  const [first, second] = text.trim().split('.');
  const num = (s: string | undefined) => (s !== undefined && /^\d{1,3}$/.test(s) ? Number(s) : null);
  const a = num(first);
  const b = num(second);
  return {
    ...(a !== null && a > 0 && a < 256 ? { ip1: a } : {}),
    ...(b !== null && b <= 255 ? { ip2: b } : {}),
  };
}

/** Why the typed IP prefix is (partly) ignored, or null when every typed part counts. */
export function ipPrefixProblem(text: string): string | null {
  const t = text.trim();
  if (t === '') return null;
  const parts = t.split('.');
  const parsed = parseIpPrefix(t);
  if (parsed.ip1 === undefined) return 'The first part must be a number from 1 to 255';
  if (parts.length > 1 && parts[1] !== '' && parsed.ip2 === undefined) {
    return 'The second part must be a number from 0 to 255';
  }
  return null;
}

const RADIUS_COUNTRIES: ReadonlySet<string> = new Set(RADIUS_SEARCH_COUNTRIES);

/** Advanced Search is offered only for the countries of rules §5. */
export const isRadiusSearchCountry = (cc: string): boolean => RADIUS_COUNTRIES.has(cc);

/** The radius search is active only with both a centre postal code and a radius above 0. */
export const isRadiusActive = (f: Pick<ShopFilter, 'cc' | 'geozip' | 'georad'>): boolean =>
  isRadiusSearchCountry(f.cc) && f.geozip.trim() !== '' && f.georad > 0;

/** The query string of `GET /agents` for a filter and a page (the offset is page * rows). */
export function toAgentListQuery(
  f: ShopFilter,
  paging: ShopPaging,
  withSegments = false,
): Record<string, string | number | boolean> {
  const q: Record<string, string | number | boolean> = {
    cc: f.cc,
    cursor: paging.page * paging.rowsPerPage,
    limit: paging.rowsPerPage,
  };
  if (withSegments) q.segments = true;
  for (const key of ['reg', 'city', 'zip', 'isp'] as const) if (f[key] !== '') q[key] = f[key];
  Object.assign(q, parseIpPrefix(f.ip));
  if (f.conn !== 'any') q.conn = f.conn;
  if (f.type !== 'any') q.leases = f.type === 'private' ? 'none' : 'some';
  if (f.age !== 'any') q.fresh = f.age === 'new';
  // A minimum of 1 is every proxy (the slider's "Any"): no exstars.
  if (f.stars !== null && f.stars > 1) q.exstars = f.stars;
  if (isRadiusActive(f)) {
    q.geozip = f.geozip.trim().toUpperCase();
    q.georad = f.georad;
  }
  return q;
}

const oneOf = <T extends string>(value: string | null, options: readonly T[], fallback: T): T =>
  options.includes(value as T) ? (value as T) : fallback;

const intIn = (value: string | null, min: number, max: number): number | null => {
  if (value === null || !/^\d+$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
};

/** Reads the filter from the address's query; anything malformed falls back to its default. */
export function filterFromParams(params: URLSearchParams): ShopFilter {
  const cc = params.get('cc')?.toUpperCase() ?? '';
  const text = (key: string) => (params.get(key) ?? '').slice(0, 100);
  return {
    cc: /^[A-Z]{2}$/.test(cc) ? cc : DEFAULT_SHOP_COUNTRY,
    reg: text('reg'),
    city: text('city'),
    zip: text('zip'),
    isp: text('isp'),
    ip: text('ip'),
    stars: intIn(params.get('stars'), 1, 10),
    type: oneOf(params.get('type'), ['any', 'private', 'shared'], 'any'),
    conn: oneOf(params.get('conn'), ['any', 'wifi', 'cell'], 'any'),
    age: oneOf(params.get('age'), ['any', 'new', 'old'], 'any'),
    geozip: text('geozip').toUpperCase(),
    georad: intIn(params.get('georad'), 0, MAX_SEARCH_RADIUS_MI) ?? 0,
  };
}

/** Where the phone's Cleanliness slider starts when the shop has no clean-score filter (rules §9). */
export const CLEANLINESS_DEFAULT = 6;

/**
 * The Filter page's starting values: the shop's filter, with Cleanliness at its default of 6 unless
 * the address already holds a choice (`stars=1` is a chosen "Any").
 */
export function filterPageDraft(params: URLSearchParams): ShopFilter {
  const f = filterFromParams(params);
  return { ...f, stars: f.stars ?? CLEANLINESS_DEFAULT };
}

/** The Filter page after Reset: nothing but the country, Cleanliness at its default. */
export const resetFilterDraft = (cc: string): ShopFilter => ({
  ...emptyFilter(cc),
  stars: CLEANLINESS_DEFAULT,
});

/** Reads the page and rows per page; an unknown page size falls back to 10. */
export function pagingFromParams(params: URLSearchParams): ShopPaging {
  const rows = intIn(params.get('rows'), 1, 100);
  return {
    page: intIn(params.get('page'), 0, 100_000) ?? 0,
    rowsPerPage: (SHOP_PAGE_SIZES as readonly number[]).includes(rows ?? 0) ? rows! : DEFAULT_ROWS_PER_PAGE,
  };
}

/** The query string for a filter and paging; defaults are left out so the address stays short. */
export function toParams(f: ShopFilter, paging?: ShopPaging): URLSearchParams {
  const params = new URLSearchParams();
  const empty = emptyFilter(f.cc);
  if (f.cc !== DEFAULT_SHOP_COUNTRY) params.set('cc', f.cc);
  for (const key of ['reg', 'city', 'zip', 'isp', 'ip', 'type', 'conn', 'age', 'geozip'] as const) {
    if (f[key] !== empty[key]) params.set(key, String(f[key]));
  }
  if (f.stars !== null) params.set('stars', String(f.stars));
  if (f.georad !== 0) params.set('georad', String(f.georad));
  if (paging && paging.page > 0) params.set('page', String(paging.page));
  if (paging && paging.rowsPerPage !== DEFAULT_ROWS_PER_PAGE) params.set('rows', String(paging.rowsPerPage));
  return params;
}

/** A filter for another country: the location fields, ISP and Advanced Search belong to the old one. */
export const withCountry = (f: ShopFilter, cc: string): ShopFilter => ({
  ...f,
  cc,
  reg: '',
  city: '',
  zip: '',
  isp: '',
  geozip: '',
  georad: 0,
});

/** The field error of Advanced Search and the Filter page when the server knows no such code. */
export const UNKNOWN_POSTAL_TEXT = 'Unknown ZIP/postal code for this country';

/** The filter's fields behind each query parameter `GET /agents` may name in a 400. */
const FILTER_FIELDS_OF: Record<string, { keys: (keyof ShopFilter)[]; label: string }> = {
  geozip: { keys: ['geozip', 'georad'], label: 'ZIP/postal code' },
  georad: { keys: ['geozip', 'georad'], label: 'search radius' },
  zip: { keys: ['zip'], label: 'ZIP' },
  city: { keys: ['city'], label: 'city' },
  reg: { keys: ['reg'], label: 'region' },
  isp: { keys: ['isp'], label: 'ISP' },
  ip1: { keys: ['ip'], label: 'IP' },
  ip2: { keys: ['ip'], label: 'IP' },
  exstars: { keys: ['stars'], label: 'clean score' },
  conn: { keys: ['conn'], label: 'connection' },
  leases: { keys: ['type'], label: 'type' },
  fresh: { keys: ['age'], label: 'age' },
};

/** The field a 400 answer names (`{ field }` of the API's error body), if any. */
export const rejectedField = (body: unknown): string | undefined => {
  const field = typeof body === 'object' && body !== null ? (body as { field?: unknown }).field : undefined;
  return typeof field === 'string' ? field : undefined;
};

/**
 * A `GET /agents` 400 that names one of the filter's fields (a value from the address: a bookmark,
 * an edited link): the filter without that value, and the message that says what was dropped, so
 * the shop shows the rest instead of an error screen. Null when the 400 names nothing droppable.
 */
export function dropRejectedField(
  filter: ShopFilter,
  body: unknown,
): { filter: ShopFilter; message: string } | null {
  const field = rejectedField(body);
  const entry = field ? FILTER_FIELDS_OF[field] : undefined;
  if (!entry) return null;
  const empty = emptyFilter(filter.cc);
  if (entry.keys.every((k) => filter[k] === empty[k])) return null;
  const next = { ...filter };
  for (const k of entry.keys) (next as Record<string, unknown>)[k] = empty[k];
  const shown = field === 'geozip' || field === 'georad' ? filter.geozip : String(filter[entry.keys[0]!]);
  const message =
    field === 'geozip'
      ? `${UNKNOWN_POSTAL_TEXT}: ${shown} was removed from the search.`
      : `The ${entry.label} "${shown}" was not accepted and was removed from the search.`;
  return { filter: next, message };
}
