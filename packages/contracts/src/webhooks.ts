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

export const ZWebhookDelivery = z.object({
  id: z.string(),
  endpointId: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  created: z.string(),
  deliveredAt: z.string().nullable(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;
export const ZWebhookDeliveryList = z.object({ deliveries: z.array(ZWebhookDelivery) });
