import { QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError } from '../lib/api/transport.ts';
import type { FlagStore } from './flags.ts';

/** Data that refreshes in the background (account, leases, history) does so this often (rules §9). */
export const DATA_REFRESH_MS = 20_000;

/**
 * The query client. The transport already raised the right global state for failed calls; anything else
 * a query throws (a malformed answer, a bug) raises the global error.
 */
export function createQueryClient(flags: FlagStore): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (!isApiError(error)) {
          console.error(error);
          flags.set({ globalError: true });
        }
      },
    }),
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
}
