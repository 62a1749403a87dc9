import type { Endpoint } from '../endpoint.ts';

export const LEASE_ENDPOINTS = {} as const satisfies Record<string, Endpoint>;
