import type { RateCounter } from '@pm/db';

/** What @fastify/rate-limit passes a store's `child()`: the merged limit and, for a route's own limit, the route. */
interface ChildParams {
  /** Set by `registerEndpoint` for limits shared by several paths (the operation's id). */
  bucket?: string;
  routeInfo?: { method?: string | string[]; url?: string };
}

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/**
 * A @fastify/rate-limit store over the shared `rate_limits` counters (`createPgRateCounter`), so
 * every API process on one database counts one budget. One bucket per route (method and URL, or
 * the operation id an endpoint passes as `bucket`), keyed
 * `<surface>:<bucket>:<user id or IP>`; fixed windows of the route's `timeWindow`.
 */
export function sharedRateLimitStore(counter: RateCounter, surface: string, now: () => number) {
  return class SharedRateLimitStore {
    readonly bucket: string | undefined;
    constructor(_global?: unknown, bucket?: string) {
      this.bucket = bucket;
    }
    incr(key: string, cb: Callback, timeWindow: number): void {
      if (!this.bucket) {
        cb(new Error('rate limit without a route: pass `bucket`'));
        return;
      }
      counter.hit(`${surface}:${this.bucket}:${key}`, timeWindow).then(
        (r) => cb(null, { current: r.hits, ttl: Math.max(0, r.resetAtMs - now()) }),
        (e: Error) => cb(e),
      );
    }
    /** Typed by the plugin as the route's options; at run time the merged limit (see ChildParams). */
    child(options: object): SharedRateLimitStore {
      const params = options as ChildParams;
      const route = params.routeInfo;
      const bucket =
        params.bucket ?? (route?.url ? `${[route.method ?? ''].flat().join(',')} ${route.url}` : undefined);
      return new SharedRateLimitStore(undefined, bucket);
    }
  };
}
