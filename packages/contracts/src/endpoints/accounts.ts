import type { Endpoint } from '../endpoint.ts';

export const ACCOUNT_ENDPOINTS = {} as const satisfies Record<string, Endpoint>;
