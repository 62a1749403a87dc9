import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { activeLeasesQuery } from './queries.ts';

/** The caller's active leases, kept fresh every 20 s. */
export function useActiveLeases() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useQuery(activeLeasesQuery(api, queryClient));
}
