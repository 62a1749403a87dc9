import {
  ZAccount,
  ZAccountIdParams,
  ZPatchAccountRequest,
  ZTxRecordsQuery,
  ZTxRecordsResponse,
} from '../accounts.ts';
import { ZAuditQuery, ZAuditResponse } from '../audit.ts';
import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint, errors } from '../endpoint.ts';
import { CREDIT_ERROR_CODES, LEASE_ENDED_ERROR_CODES } from '../error-codes.ts';
import { ZEmptyBody, ZIdempotencyKeyHeaders } from '../http.ts';
import { ZAuthPortCreateBody, ZAuthPortCreateResponse, ZAuthPortParams } from '../leases.ts';
import { ZReferralInfo } from '../payments.ts';

/** The customer's account, ledger, referral and Port NoAuth; staff's accounts and audit trail. */
export const ACCOUNT_ENDPOINTS = {
  getMyAccount: defineEndpoint({
    operationId: 'getMyAccount',
    method: 'GET',
    path: '/accounts/my',
    summary: 'Your account: balance, permissions and referral code (404 before the first PUT)',
    visibility: 'customer',
    tags: ['accounts'],
    response: { 200: ZAccount, ...errors, 404: ZErrorBody },
  }),
  createMyAccount: defineEndpoint({
    operationId: 'createMyAccount',
    method: 'PUT',
    path: '/accounts/my',
    summary: 'Create your account on the first visit (an existing one is returned as it is)',
    visibility: 'customer',
    tags: ['accounts'],
    body: ZEmptyBody,
    response: { 200: ZAccount, ...errors, 404: ZErrorBody },
  }),
  getAccount: defineEndpoint({
    operationId: 'getAccount',
    method: 'GET',
    path: '/accounts/{id}',
    summary: 'A customer’s account (staff)',
    visibility: 'staff',
    tags: ['admin'],
    params: ZAccountIdParams,
    response: { 200: ZAccount, ...errors, 404: ZErrorBody },
  }),
  updateAccount: defineEndpoint({
    operationId: 'updateAccount',
    method: 'PATCH',
    path: '/accounts/{id}',
    summary: 'Change a customer’s balance or permissions (staff; audited)',
    visibility: 'staff',
    tags: ['admin'],
    params: ZAccountIdParams,
    headers: ZIdempotencyKeyHeaders,
    body: ZPatchAccountRequest,
    errorCodes: CREDIT_ERROR_CODES,
    response: { 200: ZAccount, ...errors, 404: ZErrorBody, 409: ZErrorBody },
  }),
  listAuditEntries: defineEndpoint({
    operationId: 'listAuditEntries',
    method: 'GET',
    path: '/admin/audit',
    summary: 'The audit trail, filtered by actor, target, action and dates (staff)',
    visibility: 'staff',
    tags: ['admin'],
    querystring: ZAuditQuery,
    response: { 200: ZAuditResponse, ...errors },
  }),
  listTxRecords: defineEndpoint({
    operationId: 'listTxRecords',
    method: 'GET',
    path: '/txrecords',
    summary: 'Your ledger records, newest first (staff may pass `uid` to read anyone’s)',
    visibility: 'customer',
    tags: ['payments'],
    querystring: ZTxRecordsQuery,
    response: { 200: ZTxRecordsResponse, ...errors },
  }),
  getReferralInfo: defineEndpoint({
    operationId: 'getReferralInfo',
    method: 'GET',
    path: '/referral',
    summary: 'Your referral code, invite link, sign-ups and rewards',
    visibility: 'customer',
    tags: ['payments'],
    response: { 200: ZReferralInfo, ...errors, 404: ZErrorBody },
  }),
  createAuthPort: defineEndpoint({
    operationId: 'createAuthPort',
    method: 'POST',
    path: '/authport/create/{id}',
    summary: 'Open a lease’s no-auth port for a whitelist of addresses (Port NoAuth)',
    description:
      'The body is the whitelist: a JSON string of comma-separated addresses, `{ whitelist }` or a list.',
    visibility: 'customer',
    tags: ['leases'],
    params: ZAuthPortParams,
    body: ZAuthPortCreateBody,
    errorCodes: LEASE_ENDED_ERROR_CODES,
    response: { 200: ZAuthPortCreateResponse, ...errors, 404: ZErrorBody, 409: ZErrorBody },
  }),
} as const satisfies Record<string, Endpoint>;
