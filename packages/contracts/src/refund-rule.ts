import { AUTO_REFUND_FAIL_PCT } from './leases.ts';

/**
 * The auto-refund (SPEC 9: 40% or more of SOCKS requests failed) judges the last hour of a lease, not
 * its whole life, from its hourly traffic rows (apps/server/README.md, "Auto-refund").
 */
export const AUTO_REFUND_WINDOW_MS = 60 * 60 * 1000;
/** Requests the last hour needs before the auto-refund can fire, so one early failure is not 100%. */
export const AUTO_REFUND_MIN_REQUESTS = 10;

/**
 * The rule as the customer reads it (the FAQ's refund answer): only failures the proxy is responsible
 * for count, over the last hour; static proxies are refunded through support.
 */
export const AUTO_REFUND_RULE_TEXT =
  `If ${AUTO_REFUND_FAIL_PCT}% or more of the requests through a leased proxy fail because the proxy ` +
  `stopped working (it went offline, did not answer, or failed on its own) during the last hour, with ` +
  `at least ${AUTO_REFUND_MIN_REQUESTS} requests in that hour, the price you last paid for it is returned ` +
  'to your balance automatically and the lease ends. Requests to a site that refuses the connection, ' +
  'cannot be reached or found, or is blocked, and requests over your connection limit on the proxy, ' +
  'are not failures of the proxy and do not count. Static proxies are not refunded automatically: ' +
  'contact support with the lease ID.';
