import { AUTO_REFUND_FAIL_PCT } from './leases.ts';
import { PORT_REFUND_MAX_BYTES } from './rules.ts';

/**
 * The auto-refund (rules §9: 40% or more of SOCKS requests failed) judges the last hour of a lease, not
 * its whole life, from its hourly traffic rows (apps/server/README.md, "Auto-refund").
 */
export const AUTO_REFUND_WINDOW_MS = 60 * 60 * 1000;
/** Requests the last hour needs before the auto-refund can fire, so one early failure is not 100%. */
export const AUTO_REFUND_MIN_REQUESTS = 10;

/**
 * The auto-refund rule in one sentence (what counts, the window, the minimum, static proxies left
 * out), as the server enforces it (`leases.autoRefund`). Every hint, dialog and page that promises
 * the auto-refund quotes it; where docs/rules.md fixes a text it follows its words.
 */
export const AUTO_REFUND_RULE_SHORT =
  `Auto-refund: if ${AUTO_REFUND_FAIL_PCT}% or more of at least ${AUTO_REFUND_MIN_REQUESTS} requests in the ` +
  'last hour fail because of the proxy itself (not the sites you reach), the price you last paid comes ' +
  'back to your balance; never for static proxies.';

/**
 * The rule as the customer reads it in full (the FAQ's answer, the Terms): the short form, then what
 * the proxy itself failing means and what never counts; static proxies are refunded through support.
 */
export const AUTO_REFUND_RULE_TEXT =
  `${AUTO_REFUND_RULE_SHORT} The proxy fails when it goes offline, does not answer, or fails on its ` +
  'own; the lease then ends. Requests to a site that refuses the connection, cannot be reached or ' +
  'found, or is blocked, requests over your connection limit on the proxy, and sign-ins with a wrong ' +
  'password are not failures of the proxy and do not count. Static proxies are refunded only on ' +
  'request, through support.';

/** MB (MiB) a port package may carry per Gb bought and still be refunded. */
const PORT_REFUND_MB = PORT_REFUND_MAX_BYTES / (1024 * 1024);

/** What a port package's refund returns (`ports.rules.ts` `portRefundAmountC`), for the refund's confirm dialog. */
export const PORT_REFUND_AMOUNT_TEXT =
  "The refund returns the last amount charged for the package less the traffic used, at the package's " +
  'price per Gb; the ports stop at once.';

/**
 * The port package's refund rule (rules §9, as `ports.rules.ts` decides it): who may refund, and what
 * the refund returns, so that buying, using and refunding never gives traffic away.
 */
export const PORT_REFUND_RULE_TEXT =
  `A port package can be refunded while it has carried ${PORT_REFUND_MB} MB or less per Gb bought ` +
  `(${PORT_REFUND_MB} MB for 1 Gb and for the unlimited port) and less than half of its period has ` +
  `passed. ${PORT_REFUND_AMOUNT_TEXT}`;
