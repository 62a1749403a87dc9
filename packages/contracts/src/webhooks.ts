import { z } from 'zod';

/** The events a webhook endpoint receives. `ping` is sent on request (POST /webhooks/{id}/ping). */
export const WEBHOOK_EVENT_TYPES = [
  'ping',
  'lease.expiring',
  'lease.ended',
  'lease.agentOffline',
  'deposit.credited',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by the endpoint's secret>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'pm-signature';
/** A receiver should refuse a signature older than this (replays). */
export const WEBHOOK_TOLERANCE_S = 300;
/** Tries per delivery: the first and 6 retries, 30 s doubling (about 32 minutes in all). */
export const WEBHOOK_MAX_ATTEMPTS = 7;
export const MAX_WEBHOOK_ENDPOINTS = 5;

export const ZWebhookEndpoint = z.object({ id: z.string(), url: z.string(), created: z.string() });
export const ZWebhookEndpointList = z.object({ endpoints: z.array(ZWebhookEndpoint) });
export const ZWebhookCreateBody = z.object({ url: z.string().trim().min(8).max(500) }).strict();
/** The created endpoint with its signing secret: the only answer that carries it. */
export const ZWebhookCreated = ZWebhookEndpoint.extend({ secret: z.string() });
export const ZWebhookIdParams = z.object({ id: z.uuid() });

/**
 * What a failed try of a delivery says: its class of failure only. Never an address or a name the
 * product resolved, nor the system's error text, so the log cannot map a network it should not see
 * (an internal name's address, which ports answer). A 2xx answer delivers; another answer is
 * `status <code>` (`webhookStatusError`).
 */
export const WEBHOOK_DELIVERY_ERRORS = {
  /** The name resolved to (or the URL named) an address that is not a public internet address. */
  refused: 'refused: not a public address',
  /** The name has no address (NXDOMAIN, no answer). */
  dns: 'name not resolved',
  /** No answer within the delivery's 10 s (connect, TLS and the answer's status line together). */
  timeout: 'timeout',
  /** The TLS handshake failed: a certificate that does not verify or name the host, or no TLS. */
  tls: 'TLS handshake failed',
  /** The connection was refused, reset or unreachable. */
  connection: 'connection failed',
} as const;
export type WebhookDeliveryErrorClass = keyof typeof WEBHOOK_DELIVERY_ERRORS;

/** What each class means to the endpoint's owner (the API page lists them). */
export const WEBHOOK_DELIVERY_ERROR_MEANINGS: Record<WebhookDeliveryErrorClass, string> = {
  refused: 'the URL names, or its host name resolves to, an address that is not a public internet address',
  dns: 'the host name has no address',
  timeout: 'no answer within 10 seconds (connecting, TLS and the status line together)',
  tls: 'the certificate does not verify or does not name the host, or the server does not speak TLS',
  connection: 'the connection was refused, reset or could not be made',
};

/** The error of a try answered with a status other than 2xx: `status 500`. */
export const webhookStatusError = (statusCode: number): string => `status ${statusCode}`;

/** A delivery's last error: one of WEBHOOK_DELIVERY_ERRORS, or `status <code>`. */
export const ZWebhookDeliveryError = z.union([
  z.enum(WEBHOOK_DELIVERY_ERRORS),
  z.string().regex(/^status [1-5]\d\d$/),
]);

export const ZWebhookDelivery = z.object({
  id: z.string(),
  endpointId: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: ZWebhookDeliveryError.nullable(),
  created: z.string(),
  deliveredAt: z.string().nullable(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;
export const ZWebhookDeliveryList = z.object({ deliveries: z.array(ZWebhookDelivery) });
