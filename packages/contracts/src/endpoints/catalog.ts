import { ZAgent, ZAgentIdParams, ZCountryTotals, ZCountryTotalsQuery, ZScoreCheck } from '../agents.ts';
import {
  ZScoreCheckPurchase,
  ZScoreCheckQuote,
  ZSpeedCheck,
  ZSpeedCheckErrorBody,
  ZSpeedCheckQuery,
} from '../checks.ts';
import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint, errors } from '../endpoint.ts';
import {
  DEBIT_ERROR_CODES,
  IDEMPOTENCY_ERROR_CODES,
  SCORE_CHECK_ERROR_CODES,
  SPEED_CHECK_ERROR_CODES,
  STATIC_LEASE_ERROR_CODES,
} from '../error-codes.ts';
import { ZIdempotencyKeyHeaders } from '../http.ts';
import { ZLease } from '../leases.ts';
import {
  ZStaticLeaseBody,
  ZStaticLeaseErrorBody,
  ZStaticListQuery,
  ZStaticListResponse,
} from '../lifecycle.ts';
import { ZPricingRules, ZPricingRulesBody } from '../pricing.ts';

/** The shop's other reads, the speed and score checks, the static shop and the price list. */
export const CATALOG_ENDPOINTS = {
  getAgent: defineEndpoint({
    operationId: 'getAgent',
    method: 'GET',
    path: '/agents/{id}',
    summary: 'One proxy: its details, and its uptime when you lease it',
    visibility: 'customer',
    tags: ['shop'],
    params: ZAgentIdParams,
    response: { 200: ZAgent, ...errors, 404: ZErrorBody },
  }),
  getCountryTotals: defineEndpoint({
    operationId: 'getCountryTotals',
    method: 'GET',
    path: '/totals/agents',
    summary: 'Proxies on offer per country (`all=true`: every country)',
    visibility: 'customer',
    tags: ['shop'],
    querystring: ZCountryTotalsQuery,
    response: { 200: ZCountryTotals, ...errors },
  }),
  getSpeedCheck: defineEndpoint({
    operationId: 'getSpeedCheck',
    method: 'GET',
    path: '/agents/{id}/speedcheck',
    summary: 'A proxy’s last speed test; `request=true` starts a new one (one per 6 minutes)',
    visibility: 'customer',
    tags: ['agents'],
    params: ZAgentIdParams,
    querystring: ZSpeedCheckQuery,
    errorCodes: SPEED_CHECK_ERROR_CODES,
    response: { 200: ZSpeedCheck, ...errors, 404: ZErrorBody, 409: ZSpeedCheckErrorBody },
  }),
  quoteScoreCheck: defineEndpoint({
    operationId: 'quoteScoreCheck',
    method: 'POST',
    path: '/agents/scorecheck',
    summary: 'The price of a score check and the one-time token that buys it',
    visibility: 'customer',
    tags: ['agents'],
    response: { 200: ZScoreCheckQuote, ...errors, 404: ZErrorBody },
  }),
  buyScoreCheck: defineEndpoint({
    operationId: 'buyScoreCheck',
    method: 'PATCH',
    path: '/agents/scorecheck',
    summary: 'Buy a score check of a proxy at the quoted price',
    visibility: 'customer',
    tags: ['agents'],
    body: ZScoreCheckPurchase,
    errorCodes: [...SCORE_CHECK_ERROR_CODES, ...DEBIT_ERROR_CODES],
    response: {
      200: ZScoreCheck,
      ...errors,
      402: ZErrorBody,
      404: ZErrorBody,
      409: ZErrorBody,
      503: ZErrorBody,
    },
  }),
  listStaticAgents: defineEndpoint({
    operationId: 'listStaticAgents',
    method: 'GET',
    path: '/static/list/',
    summary: 'Static proxies for sale, by country, with filters and paging',
    visibility: 'customer',
    tags: ['static'],
    querystring: ZStaticListQuery,
    response: { 200: ZStaticListResponse, ...errors, 404: ZErrorBody },
  }),
  leaseStaticAgent: defineEndpoint({
    operationId: 'leaseStaticAgent',
    method: 'POST',
    path: '/static/lease',
    summary: 'Lease a static proxy at the price shown',
    visibility: 'customer',
    tags: ['static'],
    headers: ZIdempotencyKeyHeaders,
    body: ZStaticLeaseBody,
    errorCodes: [...STATIC_LEASE_ERROR_CODES, ...DEBIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: {
      201: ZLease,
      ...errors,
      402: ZErrorBody,
      404: ZErrorBody,
      409: ZStaticLeaseErrorBody,
    },
  }),
  getPricingRules: defineEndpoint({
    operationId: 'getPricingRules',
    method: 'GET',
    path: '/pricing/rules',
    summary: 'The ordered price list the shop and purchases use (staff)',
    visibility: 'staff',
    tags: ['admin'],
    response: { 200: ZPricingRules, ...errors },
  }),
  replacePricingRules: defineEndpoint({
    operationId: 'replacePricingRules',
    method: 'PUT',
    path: '/pricing/rules',
    summary: 'Replace the price list (staff; audited)',
    visibility: 'staff',
    tags: ['admin'],
    body: ZPricingRulesBody,
    response: { 200: ZPricingRules, ...errors },
  }),
} as const satisfies Record<string, Endpoint>;
