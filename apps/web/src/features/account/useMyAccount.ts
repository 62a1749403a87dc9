import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../app/context.tsx';
import { myAccountQuery } from './queries.ts';

/** The signed-in user's account, kept fresh every 20 s. */
export function useMyAccount() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useQuery(myAccountQuery(api, queryClient));
}
