import { z } from 'zod';
import { ZErrorBody } from '../common.ts';
import { defineEndpoint, type Endpoint } from '../endpoint.ts';
import {
  CREDIT_ERROR_CODES,
  DEBIT_ERROR_CODES,
  IDEMPOTENCY_ERROR_CODES,
  PORT_PURCHASE_ERROR_CODES,
  PORT_REACTIVATE_ERROR_CODES,
  PORT_REFUND_ERROR_CODES,
  PORT_ROTATE_ERROR_CODES,
} from '../error-codes.ts';
import { ZIdempotencyKeyHeaders } from '../http.ts';
import {
  ZNewPortRequest,
  ZPortCities,
  ZPortCountries,
  ZPortGeoChildQuery,
  ZPortPackage,
  ZPortPackageParams,
  ZPortPackages,
  ZPortPriceRequest,
  ZPortPriceResponse,
  ZPortPricing,
  ZPortPricingBody,
  ZPortRotateParams,
  ZPortRotateResponse,
  ZPortStates,
  ZPortsError,
  ZPortTrafficResponse,
  ZPortUserParams,
  ZPortWhitelistRequest,
} from '../ports.ts';

/** Every Ports API answer but success is a ports error (`error`, and `price` or `retryAfterSeconds`). */
const portsErrors = {
  400: ZPortsError,
  401: ZPortsError,
  402: ZPortsError,
  403: ZPortsError,
  404: ZPortsError,
  409: ZPortsError,
  429: ZPortsError,
  503: ZPortsError,
};
/** The staff price table's refusals; 503 when the sign-in host's keys cannot be fetched to check the token. */
const staffErrors = { 400: ZErrorBody, 401: ZErrorBody, 403: ZErrorBody, 503: ZErrorBody };

/** One operation of the Ports API (rules §7): served on its own base address, the ports listener. */
const portsOp = <const E extends Omit<Endpoint, 'api' | 'tags' | 'visibility'>>(e: E) =>
  defineEndpoint({ ...e, api: 'ports', tags: ['ports'], visibility: 'customer' });

/**
 * The Ports API (rules §7) on its own base address: every operation but the rotation link
 * needs the customer's bearer token and acts only on the caller's packages. Also the staff price
 * table (`GET|PUT /pricing/ports`) on the market API.
 */
export const PORTS_ENDPOINTS = {
  quotePortPrice: portsOp({
    operationId: 'quotePortPrice',
    method: 'POST',
    path: '/price',
    summary: 'Price a port package order',
    body: ZPortPriceRequest,
    response: { 200: ZPortPriceResponse, ...portsErrors },
  }),
  createPortPackage: portsOp({
    operationId: 'createPortPackage',
    method: 'POST',
    path: '/package/create',
    summary: 'Buy a port package at the quoted price',
    headers: ZIdempotencyKeyHeaders,
    body: ZNewPortRequest,
    errorCodes: [...PORT_PURCHASE_ERROR_CODES, ...DEBIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: { 200: ZPortPackage, ...portsErrors },
  }),
  listPortPackages: portsOp({
    operationId: 'listPortPackages',
    method: 'GET',
    path: '/users/{id}/packages',
    summary: 'List your port packages',
    params: ZPortUserParams,
    response: { 200: ZPortPackages, ...portsErrors },
  }),
  updatePortWhitelist: portsOp({
    operationId: 'updatePortWhitelist',
    method: 'POST',
    path: '/port/update/whitelist',
    summary: 'Set a package’s IP whitelist',
    body: ZPortWhitelistRequest,
    response: { 200: ZPortPackage, ...portsErrors },
  }),
  switchPortToLogin: portsOp({
    operationId: 'switchPortToLogin',
    method: 'GET',
    path: '/port/update/auth/{id}',
    summary: 'Switch a package to login authentication',
    params: ZPortPackageParams,
    response: { 200: ZPortPackage, ...portsErrors },
  }),
  refundPortPackage: portsOp({
    operationId: 'refundPortPackage',
    method: 'GET',
    path: '/package/refund/{id}',
    summary: 'Refund an unused port package',
    headers: ZIdempotencyKeyHeaders,
    params: ZPortPackageParams,
    errorCodes: [...PORT_REFUND_ERROR_CODES, ...CREDIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: { 200: ZPortPackage, ...portsErrors },
  }),
  reactivatePortPackage: portsOp({
    operationId: 'reactivatePortPackage',
    method: 'GET',
    path: '/package/reactivate/{id}',
    summary: 'Reactivate an expired port package',
    headers: ZIdempotencyKeyHeaders,
    params: ZPortPackageParams,
    errorCodes: [...PORT_REACTIVATE_ERROR_CODES, ...DEBIT_ERROR_CODES, ...IDEMPOTENCY_ERROR_CODES],
    response: { 200: ZPortPackage, ...portsErrors },
  }),
  listPortCountries: portsOp({
    operationId: 'listPortCountries',
    method: 'GET',
    path: '/list/full',
    summary: 'List the countries ports are sold in',
    response: { 200: ZPortCountries, ...portsErrors },
  }),
  listPortStates: portsOp({
    operationId: 'listPortStates',
    method: 'GET',
    path: '/list/geo/state',
    summary: 'List the states of a country',
    querystring: ZPortGeoChildQuery,
    response: { 200: ZPortStates, ...portsErrors },
  }),
  listPortCities: portsOp({
    operationId: 'listPortCities',
    method: 'GET',
    path: '/list/geo/city',
    summary: 'List the cities of a state',
    querystring: ZPortGeoChildQuery,
    response: { 200: ZPortCities, ...portsErrors },
  }),
  getPortTraffic: portsOp({
    operationId: 'getPortTraffic',
    method: 'GET',
    path: '/package/traffic/{id}',
    summary: 'A package’s traffic per hour',
    params: ZPortPackageParams,
    response: { 200: ZPortTrafficResponse, ...portsErrors },
  }),
  downloadPortTrafficCsv: portsOp({
    operationId: 'downloadPortTrafficCsv',
    method: 'GET',
    path: '/package/traffic/{id}.csv',
    summary: 'A package’s traffic per hour as CSV',
    params: ZPortPackageParams,
    response: { 200: z.string(), ...portsErrors },
  }),
  rotatePortIp: defineEndpoint({
    operationId: 'rotatePortIp',
    method: 'GET',
    path: '/port/change/ip/{port}/{key}',
    summary: 'Rotate a port to another exit (the rotation link)',
    description:
      'No token: scripts call it with the port and its package’s key. A port rotates at most once every 5 minutes.',
    visibility: 'anonymous',
    api: 'ports',
    tags: ['ports'],
    params: ZPortRotateParams,
    errorCodes: [...PORT_ROTATE_ERROR_CODES, 'accountBlocked'],
    response: { 200: ZPortRotateResponse, ...portsErrors },
  }),
  getPortPricing: defineEndpoint({
    operationId: 'getPortPricing',
    method: 'GET',
    path: '/pricing/ports',
    summary: 'The port price table',
    visibility: 'staff',
    tags: ['admin'],
    response: { 200: ZPortPricing, ...staffErrors },
  }),
  replacePortPricing: defineEndpoint({
    operationId: 'replacePortPricing',
    method: 'PUT',
    path: '/pricing/ports',
    summary: 'Replace the port price table',
    visibility: 'staff',
    tags: ['admin'],
    body: ZPortPricingBody,
    response: { 200: ZPortPricing, ...staffErrors },
  }),
} as const satisfies Record<string, Endpoint>;
