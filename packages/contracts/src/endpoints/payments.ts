import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint, errors } from '../endpoint.ts';
import { CREDIT_ERROR_CODES, DEPOSIT_ERROR_CODES, HELD_CREDIT_ERROR_CODES } from '../error-codes.ts';
import {
  ZChargeCodeParams,
  ZChargePage,
  ZCryptoCheckRequest,
  ZCryptoCheckResponse,
  ZCryptoCreateRequest,
  ZCryptoCreateResponse,
  ZCryptoTransactionsQuery,
  ZCryptoTransactionsResponse,
  ZDeepCheckRequest,
  ZDeepCheckResponse,
  ZHeldCredit,
  ZHeldCreditDecision,
  ZHeldCreditParams,
  ZHeldCreditsQuery,
  ZHeldCreditsResponse,
  ZVanishedPaymentsResponse,
} from '../payments.ts';

/** A held credit's decision: release it to the balance or return it (staff), the same shapes. */
const heldDecision = {
  method: 'POST',
  visibility: 'staff',
  tags: ['admin'],
  params: ZHeldCreditParams,
  body: ZHeldCreditDecision,
  response: { 200: ZHeldCredit, ...errors, 404: ZErrorBody, 409: ZErrorBody },
} satisfies Partial<Endpoint>;

/**
 * Crypto top-ups: the customer's charge (create, check, its page) and staff's payment tools
 * (deep check, transactions, held credits, vanished payments).
 */
export const PAYMENT_ENDPOINTS = {
  createCharge: defineEndpoint({
    operationId: 'createCharge',
    method: 'POST',
    path: '/crypto/create',
    summary: 'Open a crypto charge: the address and amount to pay for a top-up',
    visibility: 'customer',
    tags: ['payments'],
    body: ZCryptoCreateRequest,
    errorCodes: DEPOSIT_ERROR_CODES,
    response: { 200: ZCryptoCreateResponse, ...errors, 404: ZErrorBody, 503: ZErrorBody },
  }),
  checkCharge: defineEndpoint({
    operationId: 'checkCharge',
    method: 'POST',
    path: '/crypto/check',
    summary: 'A charge’s state now (what the charge page polls)',
    visibility: 'customer',
    tags: ['payments'],
    body: ZCryptoCheckRequest,
    response: { 200: ZCryptoCheckResponse, ...errors, 404: ZErrorBody },
  }),
  getChargePage: defineEndpoint({
    operationId: 'getChargePage',
    method: 'GET',
    path: '/crypto/charges/{code}',
    summary: 'A charge page by its code',
    visibility: 'customer',
    tags: ['payments'],
    params: ZChargeCodeParams,
    response: { 200: ZChargePage, ...errors, 404: ZErrorBody },
  }),
  deepCheckPayments: defineEndpoint({
    operationId: 'deepCheckPayments',
    method: 'POST',
    path: '/crypto/deep-check/',
    summary: 'Rescan the matching charges’ addresses and credit what the watcher missed (staff)',
    visibility: 'staff',
    tags: ['admin'],
    body: ZDeepCheckRequest,
    errorCodes: CREDIT_ERROR_CODES,
    response: { 200: ZDeepCheckResponse, ...errors, 404: ZErrorBody, 503: ZErrorBody },
  }),
  listCryptoTransactions: defineEndpoint({
    operationId: 'listCryptoTransactions',
    method: 'GET',
    path: '/crypto/transactions',
    summary: 'A user’s crypto payments (staff)',
    visibility: 'staff',
    tags: ['admin'],
    querystring: ZCryptoTransactionsQuery,
    response: { 200: ZCryptoTransactionsResponse, ...errors, 404: ZErrorBody },
  }),
  listHeldCredits: defineEndpoint({
    operationId: 'listHeldCredits',
    method: 'GET',
    path: '/crypto/held',
    summary: 'Payments held for review instead of credited (staff)',
    visibility: 'staff',
    tags: ['admin'],
    querystring: ZHeldCreditsQuery,
    response: { 200: ZHeldCreditsResponse, ...errors, 404: ZErrorBody },
  }),
  releaseHeldCredit: defineEndpoint({
    ...heldDecision,
    operationId: 'releaseHeldCredit',
    path: '/crypto/held/{id}/release',
    summary: 'Credit a held payment to its owner’s balance (staff)',
    errorCodes: [...HELD_CREDIT_ERROR_CODES, ...CREDIT_ERROR_CODES],
  }),
  returnHeldCredit: defineEndpoint({
    ...heldDecision,
    operationId: 'returnHeldCredit',
    path: '/crypto/held/{id}/return',
    summary: 'Mark a held payment as sent back outside the system; the balance is untouched (staff)',
    errorCodes: HELD_CREDIT_ERROR_CODES,
  }),
  listVanishedPayments: defineEndpoint({
    operationId: 'listVanishedPayments',
    method: 'GET',
    path: '/crypto/vanished',
    summary: 'Credited payments later gone from the chain (staff)',
    visibility: 'staff',
    tags: ['admin'],
    response: { 200: ZVanishedPaymentsResponse, ...errors, 404: ZErrorBody },
  }),
} as const satisfies Record<string, Endpoint>;
