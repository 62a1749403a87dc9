import { ENDPOINTS, type TApiKeyCreated, type TApiKeyList } from '@pm/contracts';
import { queryOptions } from '@tanstack/react-query';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import type { ApiClient } from '../../lib/api/transport.ts';
import { queryKeys } from '../../lib/query/keys.ts';

/** The page's lists show their own failure; they never raise the app's global error. */
const LIST_IGNORES = [400, 403, 404, 429, 500, 503];

/** The public API's document, from the API itself (`GET /api/openapi.json`, no token needed). */
export const publicDocQuery = (apiUrl: string) =>
  queryOptions({
    queryKey: queryKeys.content.publicOpenApi(apiUrl),
    queryFn: async ({ signal }): Promise<unknown> => {
      const res = await fetch(`${apiUrl.replace(/\/+$/, '')}/api/openapi.json`, { signal });
      if (!res.ok) throw new Error(`GET /api/openapi.json: ${res.status}`);
      return res.json();
    },
    staleTime: 10 * 60_000,
    retry: 1,
  });

/** The caller's API keys (`GET /apikeys`). */
export const apiKeysQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: queryKeys.apiKeys.all,
    queryFn: ({ signal }): Promise<TApiKeyList> =>
      callEndpoint(api, ENDPOINTS.listApiKeys, { signal, ignoreStatuses: LIST_IGNORES }),
  });

export const createApiKey = (api: ApiClient, name: string): Promise<TApiKeyCreated> =>
  callEndpoint(api, ENDPOINTS.createApiKey, { body: { name }, ignoreStatuses: [400, 409, 429] });

export const revokeApiKey = (api: ApiClient, id: string): Promise<unknown> =>
  callEndpoint(api, ENDPOINTS.revokeApiKey, { params: { id }, ignoreStatuses: [404] });

/** The caller's webhook endpoints (`GET /webhooks`). */
export const webhooksQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: queryKeys.webhooks.endpoints(),
    queryFn: ({ signal }) =>
      callEndpoint(api, ENDPOINTS.listWebhooks, { signal, ignoreStatuses: LIST_IGNORES }),
  });

/** The delivery log (`GET /webhooks/deliveries`), refreshed every 10 s while shown. */
export const webhookDeliveriesQuery = (api: ApiClient) =>
  queryOptions({
    queryKey: queryKeys.webhooks.deliveries(),
    queryFn: ({ signal }) =>
      callEndpoint(api, ENDPOINTS.listWebhookDeliveries, {
        signal,
        ignoreOffline: true,
        ignoreStatuses: LIST_IGNORES,
      }),
    refetchInterval: 10_000,
  });

export const createWebhook = (api: ApiClient, url: string) =>
  callEndpoint(api, ENDPOINTS.createWebhook, { body: { url }, ignoreStatuses: [400, 409, 429] });
export const deleteWebhook = (api: ApiClient, id: string) =>
  callEndpoint(api, ENDPOINTS.deleteWebhook, { params: { id }, ignoreStatuses: [404] });
export const pingWebhook = (api: ApiClient, id: string) =>
  callEndpoint(api, ENDPOINTS.pingWebhook, { params: { id }, ignoreStatuses: [404, 429] });
