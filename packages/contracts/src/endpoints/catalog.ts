import type { Endpoint } from '../endpoint.ts';

export const CATALOG_ENDPOINTS = {} as const satisfies Record<string, Endpoint>;
