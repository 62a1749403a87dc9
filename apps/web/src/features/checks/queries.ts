import { ENDPOINTS, type TSpeedCheck, ZSpeedCheckErrorBody } from '@pm/contracts';
import { queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { type ApiClient, isApiError } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';

/** How often a running speed test is asked about. */
export const SPEED_POLL_MS = 2000;

/**
 * The agent's last speed check (`GET /agents/{id}/speedcheck`); null when none ran (404). Asked
 * again every 2 s while the test runs.
 */
export const speedCheckQuery = (api: ApiClient, agentId: string) =>
  queryOptions({
    queryKey: queryKeys.agents.speedCheck(agentId),
    queryFn: async ({ signal }): Promise<TSpeedCheck | null> => {
      try {
        return await callEndpoint(api, ENDPOINTS.getSpeedCheck, {
          params: { id: agentId },
          signal,
          ignoreStatuses: [404],
        });
      } catch (e) {
        if (isApiError(e) && e.status === 404) return null;
        throw e;
      }
    },
    refetchInterval: (q) => {
      const s = q.state.data?.status;
      return s === 'requested' || s === 'checking' ? SPEED_POLL_MS : false;
    },
  });

/** What asking for a new speed test gave: the job, or the refusal's retest time (409 rejected). */
export type SpeedRequestOutcome =
  | { check: TSpeedCheck }
  | { rejectedUntil: string; check: TSpeedCheck | undefined };

/** `GET /agents/{id}/speedcheck?request=true`. */
export async function requestSpeedCheck(api: ApiClient, agentId: string): Promise<SpeedRequestOutcome> {
  try {
    const check = await callEndpoint(api, ENDPOINTS.getSpeedCheck, {
      params: { id: agentId },
      query: { request: 'true' },
      ignoreStatuses: [404, 409, 429],
    });
    return { check };
  } catch (e) {
    if (isApiError(e) && e.status === 409) {
      const body = ZSpeedCheckErrorBody.safeParse(e.body);
      const rejectedUntil = body.success ? (body.data.retestAt ?? '') : '';
      return { rejectedUntil, check: body.success ? body.data.check : undefined };
    }
    throw e;
  }
}
