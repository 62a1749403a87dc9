import { ENDPOINTS, type TAgent } from '@pm/contracts';
import { queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../api/endpoint.ts';
import type { ApiClient } from '../api/transport.ts';
import { queryKeys } from './keys.ts';

/**
 * One agent (`GET /agents/{id}`), read by several screens: the proxy detail, a lease's agent (its
 * uptime and checks) and Buy Again; so it is a library, not one feature's query.
 */
export const agentQuery = (api: ApiClient, id: string) =>
  queryOptions({
    queryKey: queryKeys.agents.detail(id),
    queryFn: ({ signal }): Promise<TAgent> =>
      callEndpoint(api, ENDPOINTS.getAgent, { params: { id }, signal, ignoreStatuses: [404] }),
  });
