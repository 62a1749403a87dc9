import type { Endpoint } from '../endpoint.ts';

export const PAYMENT_ENDPOINTS = {} as const satisfies Record<string, Endpoint>;
