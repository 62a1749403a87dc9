import { z } from 'zod';
import { ZAgentListQuery, ZAgentListResponse } from '../agents.ts';
import { ZApiKeyCreateBody, ZApiKeyCreated, ZApiKeyIdParams, ZApiKeyList } from '../apikeys.ts';
import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint, errors } from '../endpoint.ts';
import {
  API_KEY_ERROR_CODES,
  CREDIT_ERROR_CODES,
  DEBIT_ERROR_CODES,
  IDEMPOTENCY_ERROR_CODES,
  LEASE_ENDED_ERROR_CODES,
  PURCHASE_ERROR_CODES,
  REFUND_ERROR_CODES,
} from '../error-codes.ts';
import { ZIdempotencyKeyHeaders } from '../http.ts';
import {
  ZAutoRenewQuery,
  ZLease,
  ZLeaseIdParams,
  ZLeasePurchaseBody,
  ZLeasesQuery,
  ZLeasesResponse,
  ZPurchaseErrorBody,
} from '../leases.ts';
import { ZRefundErrorBody, ZRefundResult } from '../lifecycle.ts';
import {
  ZWebhookCreateBody,
  ZWebhookCreated,
  ZWebhookDeliveryList,
  ZWebhookEndpointList,
  ZWebhookIdParams,
} from '../webhooks.ts';

/** A refund's answers, for the customer's refund and staff's refund on their behalf. */
export const REFUND_RESPONSES = {
  200: ZRefundResult,
  ...errors,
  404: ZErrorBody,
  400: ZRefundErrorBody,
  409: ZRefundErrorBody,
};

const EXAMPLE_LEASE = {
  id: 'k7Qz-1042',
  agentId: 'a1b2c3',
  start: '2026-11-26T10:00:00.000Z',
  until: '2026-11-27T10:00:00.000Z',
  socks: {
    host: 'gw.example.com',
    ip: '203.0.113.10',
    port: 20000,
    ports: [22080, 23080, 24080, 25080],
    httpPort: 26080,
    user: 'u8f3k',
    pwd: '••••••',
  },
  autoRenew: false,
  exc: true,
  purchasePriceC: 300,
};

/** The operations served under `/api` too (rules §7), API keys, webhooks and the caller's address. */
export const PUBLIC_ENDPOINTS = {
  listAgents: defineEndpoint({
    operationId: 'listAgents',
    method: 'GET',
    path: '/agents',
    summary: 'List proxies for sale',
    description:
      'The shop: proxies of one country (cc, default US) with filters; `cursor` pages on (0 when done); `segments=true` adds the lists of regions, cities, ZIPs and ISPs.',
    visibility: 'public',
    tags: ['shop'],
    querystring: ZAgentListQuery,
    response: { 200: ZAgentListResponse, ...errors },
    example: {
      query: { cc: 'US', exstars: '6', limit: '10' },
      answer: {
        agents: [
          {
            id: 'a1b2c3',
            ip: '203.0.113.*',
            loc: { cc: 'US', reg: 'CA', city: 'Los Angeles', zip: '90001', isp: 'Example ISP' },
            conn: 'wifi',
            stars: 8,
            priceExcC: 300,
            priceShrC: 100,
          },
        ],
        cursor: 10,
        total: 42,
      },
    },
  }),
  listLeases: defineEndpoint({
    operationId: 'listLeases',
    method: 'GET',
    path: '/leases',
    summary: 'List your active leases',
    description:
      'A page of your active leases; call again with the answer’s `cursor` until it is 0. Connect to `socks.ip` (or `socks.host`) on any of `socks.ports` with SOCKS5, or on `socks.httpPort` as an HTTP proxy, with `socks.user` and `socks.pwd`; `socks.port` is the node’s base port, not a port to connect to.',
    visibility: 'public',
    tags: ['leases'],
    querystring: ZLeasesQuery,
    response: { 200: ZLeasesResponse, ...errors, 404: ZErrorBody },
    example: { query: { cursor: '0' }, answer: { leases: [EXAMPLE_LEASE], cursor: 0 } },
  }),
  createLease: defineEndpoint({
    operationId: 'createLease',
    method: 'POST',
    path: '/leases',
    summary: 'Lease a proxy for 24 hours',
    description:
      '`expPriceC` is the price you saw (`priceExcC` for private, `exc: true`; `priceShrC` for shared); a different current price answers 409 `priceChanged`. `probe: true` tests the proxy first (409 `probeErrAgent` when it does not answer). 402 when the balance is short. Send an `Idempotency-Key` header to make a retry safe.',
    visibility: 'public',
    tags: ['leases'],
    headers: ZIdempotencyKeyHeaders,
    body: ZLeasePurchaseBody,
    errorCodes: [...PURCHASE_ERROR_CODES, ...DEBIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: { 201: ZLease, ...errors, 402: ZErrorBody, 404: ZErrorBody, 409: ZPurchaseErrorBody },
    example: {
      body: { agentID: 'a1b2c3', expPriceC: 300, probe: false, exc: true },
      answer: EXAMPLE_LEASE,
    },
  }),
  refundLease: defineEndpoint({
    operationId: 'refundLease',
    method: 'DELETE',
    path: '/leases/{id}',
    summary: 'Refund a lease',
    description:
      'Ends the lease and returns its price to your balance when the refund rules allow (see the FAQ); otherwise 409 `agentNotDead`/`notRefundable` or 400 `leaseNotEligible`.',
    visibility: 'public',
    tags: ['leases'],
    params: ZLeaseIdParams,
    errorCodes: [...REFUND_ERROR_CODES, ...CREDIT_ERROR_CODES],
    response: REFUND_RESPONSES,
    example: {
      params: { id: 'k7Qz-1042' },
      answer: { status: 'REFUND_STATUS_REFUNDED', leaseID: 'k7Qz-1042', refundAmountC: 300, balanceC: 1200 },
    },
  }),
  setAutoRenew: defineEndpoint({
    operationId: 'setAutoRenew',
    method: 'PATCH',
    publicMethod: 'GET',
    path: '/leases/{id}/autoRenew',
    summary: 'Turn auto-renew on or off',
    description:
      'With `set=true` the lease renews itself for 24 hours at its end while the balance covers it.',
    visibility: 'public',
    tags: ['leases'],
    params: ZLeaseIdParams,
    querystring: ZAutoRenewQuery,
    errorCodes: LEASE_ENDED_ERROR_CODES,
    response: { 200: ZLease, ...errors, 404: ZErrorBody, 409: ZErrorBody },
    example: {
      params: { id: 'k7Qz-1042' },
      query: { set: 'true' },
      answer: { ...EXAMPLE_LEASE, autoRenew: true },
    },
  }),
  myAddress: defineEndpoint({
    operationId: 'myAddress',
    method: 'GET',
    path: '/myip',
    summary: 'Your address as the API sees it (what a no-auth whitelist needs)',
    visibility: 'customer',
    tags: ['leases'],
    response: { 200: z.object({ ip: z.string() }), ...errors },
  }),
  listApiKeys: defineEndpoint({
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/apikeys',
    summary: 'Your API keys',
    visibility: 'customer',
    tags: ['apikeys'],
    response: { 200: ZApiKeyList, ...errors },
  }),
  createApiKey: defineEndpoint({
    operationId: 'createApiKey',
    method: 'POST',
    path: '/apikeys',
    summary: 'Create an API key (the answer is the only time the key is shown)',
    visibility: 'customer',
    tags: ['apikeys'],
    body: ZApiKeyCreateBody,
    errorCodes: API_KEY_ERROR_CODES,
    response: { 201: ZApiKeyCreated, ...errors, 409: ZErrorBody },
  }),
  revokeApiKey: defineEndpoint({
    operationId: 'revokeApiKey',
    method: 'DELETE',
    path: '/apikeys/{id}',
    summary: 'Revoke an API key',
    visibility: 'customer',
    tags: ['apikeys'],
    params: ZApiKeyIdParams,
    response: { 204: z.null(), ...errors, 404: ZErrorBody },
  }),
  listWebhooks: defineEndpoint({
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    summary: 'Your webhook endpoints',
    visibility: 'customer',
    tags: ['webhooks'],
    response: { 200: ZWebhookEndpointList, ...errors },
  }),
  createWebhook: defineEndpoint({
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    summary: 'Register an HTTPS endpoint (the answer is the only time its signing secret is shown)',
    visibility: 'customer',
    tags: ['webhooks'],
    body: ZWebhookCreateBody,
    response: { 201: ZWebhookCreated, ...errors, 409: ZErrorBody },
  }),
  deleteWebhook: defineEndpoint({
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    summary: 'Remove a webhook endpoint',
    visibility: 'customer',
    tags: ['webhooks'],
    params: ZWebhookIdParams,
    response: { 204: z.null(), ...errors, 404: ZErrorBody },
  }),
  pingWebhook: defineEndpoint({
    operationId: 'pingWebhook',
    method: 'POST',
    path: '/webhooks/{id}/ping',
    summary: 'Send a signed ping event to the endpoint',
    visibility: 'customer',
    tags: ['webhooks'],
    params: ZWebhookIdParams,
    response: { 202: z.object({ deliveryId: z.string() }), ...errors, 404: ZErrorBody },
  }),
  listWebhookDeliveries: defineEndpoint({
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/deliveries',
    summary: 'The delivery log: your last 100 deliveries',
    visibility: 'customer',
    tags: ['webhooks'],
    response: { 200: ZWebhookDeliveryList, ...errors },
  }),
} as const satisfies Record<string, Endpoint>;
