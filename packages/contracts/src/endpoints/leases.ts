import { z } from 'zod';
import {
  ZAdminLease,
  ZAdminLeasesQuery,
  ZAdminLeasesResponse,
  ZLeaseCreditRequest,
  ZLeaseCreditResult,
  ZStaffRefundRequest,
} from '../admin.ts';
import { ZAgentNoteBody, ZAgentNoteParams } from '../agents.ts';
import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint, errors } from '../endpoint.ts';
import {
  CREDIT_ERROR_CODES,
  DEBIT_ERROR_CODES,
  IDEMPOTENCY_ERROR_CODES,
  LEASE_CREDIT_ERROR_CODES,
  REFUND_ERROR_CODES,
  RENEW_ERROR_CODES,
} from '../error-codes.ts';
import { ZIdempotencyKeyHeaders } from '../http.ts';
import { ZLeaseIdParams } from '../leases.ts';
import {
  ZLeaseHistoryQuery,
  ZLeaseHistoryResponse,
  ZLeaseTrafficResponse,
  ZRenewErrorBody,
  ZRenewResult,
} from '../lifecycle.ts';
import { REFUND_RESPONSES } from './public.ts';

/**
 * The customer's lease operations besides the public ones (`endpoints/public.ts`): notes on agents,
 * renewal, history and hourly traffic; and staff's lease look-ups, refund and credit.
 */
export const LEASE_ENDPOINTS = {
  setAgentNote: defineEndpoint({
    operationId: 'setAgentNote',
    method: 'PUT',
    path: '/agentnotes/{agentId}',
    summary: 'Set your note on a proxy (every lease on it shows the note)',
    visibility: 'customer',
    tags: ['leases'],
    params: ZAgentNoteParams,
    body: ZAgentNoteBody,
    response: { 204: z.null(), ...errors, 404: ZErrorBody, 409: ZErrorBody },
  }),
  deleteAgentNote: defineEndpoint({
    operationId: 'deleteAgentNote',
    method: 'DELETE',
    path: '/agentnotes/{agentId}',
    summary: 'Remove your note on a proxy',
    visibility: 'customer',
    tags: ['leases'],
    params: ZAgentNoteParams,
    response: { 204: z.null(), ...errors, 404: ZErrorBody, 409: ZErrorBody },
  }),
  renewLease: defineEndpoint({
    operationId: 'renewLease',
    method: 'PATCH',
    path: '/leases/{id}',
    summary: 'Renew a lease for another 24 hours (402 when the balance is short)',
    visibility: 'customer',
    tags: ['leases'],
    params: ZLeaseIdParams,
    headers: ZIdempotencyKeyHeaders,
    errorCodes: [...RENEW_ERROR_CODES, ...DEBIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: { 200: ZRenewResult, ...errors, 404: ZErrorBody, 402: ZRenewErrorBody, 409: ZRenewErrorBody },
  }),
  listLeaseHistory: defineEndpoint({
    operationId: 'listLeaseHistory',
    method: 'GET',
    path: '/leaseHistory',
    summary: 'A page of your leases in a time range, newest first, with the total',
    visibility: 'customer',
    tags: ['leases'],
    querystring: ZLeaseHistoryQuery,
    response: { 200: ZLeaseHistoryResponse, ...errors, 404: ZErrorBody },
  }),
  getLeaseTraffic: defineEndpoint({
    operationId: 'getLeaseTraffic',
    method: 'GET',
    path: '/leases/{id}/traffic',
    summary: 'A lease’s traffic per hour as the gateway metered it',
    visibility: 'customer',
    tags: ['leases'],
    params: ZLeaseIdParams,
    response: { 200: ZLeaseTrafficResponse, ...errors, 404: ZErrorBody },
  }),
  downloadLeaseTrafficCsv: defineEndpoint({
    operationId: 'downloadLeaseTrafficCsv',
    method: 'GET',
    path: '/leases/{id}/traffic.csv',
    summary: 'The same hourly traffic as a CSV file (text/csv, an attachment)',
    visibility: 'customer',
    tags: ['leases'],
    params: ZLeaseIdParams,
    response: { 200: z.string(), ...errors, 404: ZErrorBody },
  }),
  getAdminLease: defineEndpoint({
    operationId: 'getAdminLease',
    method: 'GET',
    path: '/leases/{id}',
    summary: 'Any lease by id, with its owner and agent (staff)',
    visibility: 'staff',
    tags: ['admin'],
    params: ZLeaseIdParams,
    response: { 200: ZAdminLease, ...errors, 404: ZErrorBody },
  }),
  findAdminLeases: defineEndpoint({
    operationId: 'findAdminLeases',
    method: 'GET',
    path: '/admin/leases',
    summary: 'Leases of a user or on an address (staff)',
    visibility: 'staff',
    tags: ['admin'],
    querystring: ZAdminLeasesQuery,
    response: { 200: ZAdminLeasesResponse, ...errors, 404: ZErrorBody },
  }),
  staffRefundLease: defineEndpoint({
    operationId: 'staffRefundLease',
    method: 'POST',
    path: '/admin/leases/{id}/refund',
    summary: 'Refund a customer’s lease on their behalf (staff)',
    visibility: 'staff',
    tags: ['admin'],
    params: ZLeaseIdParams,
    body: ZStaffRefundRequest,
    errorCodes: [...REFUND_ERROR_CODES, ...CREDIT_ERROR_CODES],
    response: REFUND_RESPONSES,
  }),
  creditLease: defineEndpoint({
    operationId: 'creditLease',
    method: 'POST',
    path: '/admin/leases/{id}/credit',
    summary: 'Credit an ended lease’s price back to its owner (staff)',
    visibility: 'staff',
    tags: ['admin'],
    params: ZLeaseIdParams,
    body: ZLeaseCreditRequest,
    errorCodes: [...LEASE_CREDIT_ERROR_CODES, ...CREDIT_ERROR_CODES],
    response: { 200: ZLeaseCreditResult, ...errors, 404: ZErrorBody, 409: ZErrorBody },
  }),
} as const satisfies Record<string, Endpoint>;
