import type { Endpoint } from '../endpoint.ts';

export const PORTS_ENDPOINTS = {} as const satisfies Record<string, Endpoint>;
