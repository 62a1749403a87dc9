/**
 * The one fetch wrapper every market call goes through (rules §8, "Transport"): bearer token,
 * 60-second timeout, and the mapping of failures to the app's global states. Free of DOM and React
 * so Node can test it.
 */

export const REQUEST_TIMEOUT_MS = 60_000;

/** What the app does about a failed call. */
export type FailureAction = 'sign-in' | 'maintenance' | 'offline' | 'global-error' | 'none';

export interface CallOptions {
  /** Statuses the caller handles itself: they do not raise the global error. */
  ignoreStatuses?: readonly number[];
  /** A call that finds the server unreachable does not raise the offline state (background refreshes). */
  ignoreOffline?: boolean;
}

/** Maps a failed call (`status` null: no response at all) to the action rules §8 prescribes. */
export function classifyFailure(status: number | null, options: CallOptions = {}): FailureAction {
  if (status === null) return options.ignoreOffline ? 'none' : 'offline';
  if (status === 401) return 'sign-in';
  if (status === 502) return 'maintenance';
  if (options.ignoreStatuses?.includes(status)) return 'none';
  return 'global-error';
}

/** A call that did not succeed. `status` is null when no response arrived (network error or timeout). */
export class ApiError extends Error {
  readonly status: number | null;
  readonly body: unknown;
  readonly action: FailureAction;

  constructor(status: number | null, body: unknown, action: FailureAction, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.action = action;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

export interface RequestOptions<T> extends CallOptions {
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** JSON body; omitted means no body at all (not even `{}`). */
  body?: unknown;
  /** Validates the answer (a zod schema fits). */
  schema?: { parse(data: unknown): T } | undefined;
  signal?: AbortSignal | undefined;
}

export interface ApiClientConfig {
  baseUrl: string;
  /** The current bearer token, or null when there is none. */
  getAccessToken: () => string | null | Promise<string | null>;
  /** Called once per failed call with the action to take (never with 'none'). */
  onFailure: (action: Exclude<FailureAction, 'none'>, error: ApiError) => void;
  /** Called after every successful (2xx) answer. */
  onSuccess?: () => void;
  fetchFn?: typeof fetch;
  timeoutMs?: number;
}

export interface ApiClient {
  request<T = unknown>(method: string, path: string, options?: RequestOptions<T>): Promise<T>;
  get<T = unknown>(path: string, options?: RequestOptions<T>): Promise<T>;
  post<T = unknown>(path: string, options?: RequestOptions<T>): Promise<T>;
  put<T = unknown>(path: string, options?: RequestOptions<T>): Promise<T>;
  patch<T = unknown>(path: string, options?: RequestOptions<T>): Promise<T>;
  delete<T = unknown>(path: string, options?: RequestOptions<T>): Promise<T>;
}

/** Creates the market API client for one base URL. */
export function createApiClient(config: ApiClientConfig): ApiClient {
  const fetchFn = config.fetchFn ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const timeoutMs = config.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const base = config.baseUrl.replace(/\/+$/, '');

  const fail = (status: number | null, body: unknown, options: CallOptions, message: string): ApiError => {
    const action = classifyFailure(status, options);
    const error = new ApiError(status, body, action, message);
    if (action !== 'none') config.onFailure(action, error);
    return error;
  };

  async function request<T>(method: string, path: string, options: RequestOptions<T> = {}): Promise<T> {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = await config.getAccessToken();
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const signals = [AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])];

    let res: Response;
    try {
      res = await fetchFn(url, { method, headers, body, signal: AbortSignal.any(signals) });
    } catch (e) {
      // The caller cancelled (e.g. a query was dropped): not a connectivity problem.
      if (options.signal?.aborted) throw e;
      throw fail(null, undefined, options, `${method} ${path}: no response (${String(e)})`);
    }
    const data = await readBody(res);
    if (!res.ok) throw fail(res.status, data, options, `${method} ${path}: ${res.status}`);
    config.onSuccess?.();
    return options.schema ? options.schema.parse(data) : (data as T);
  }

  return {
    request,
    get: (path, o) => request('GET', path, o),
    post: (path, o) => request('POST', path, o),
    put: (path, o) => request('PUT', path, o),
    patch: (path, o) => request('PATCH', path, o),
    delete: (path, o) => request('DELETE', path, o),
  };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
