import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { queryKeys } from '../../lib/query/keys.ts';
import type { AdminClient } from './adminClient.ts';
import { adminUserQuery, type LoadedUser, type UserTarget } from './queries.ts';

/**
 * What the admin tabs share that is not server state: the typed client and which customer staff
 * asked for. The customer's data itself is a query (`adminUserQuery`), like every other read.
 */
export interface AdminState {
  client: AdminClient;
  target: UserTarget | null;
  setTarget: (target: UserTarget | null) => void;
}

export const AdminContext = createContext<AdminState | null>(null);

export function useAdmin(): AdminState {
  const state = useContext(AdminContext);
  if (!state) throw new Error('AdminContext missing');
  return state;
}

/**
 * The loaded customer and the look-up's state. A look-up forgets the customer before it asks (its
 * cached answer is dropped), so a failed one leaves nothing to act on; null while none is loaded.
 */
export function useLoadedUser() {
  const { client, target, setTarget } = useAdmin();
  const queryClient = useQueryClient();
  const query = useQuery({
    ...adminUserQuery(client, target ?? { by: 'email', value: '' }),
    enabled: target !== null,
  });
  const user: LoadedUser | null = target && !query.isError ? (query.data ?? null) : null;
  const find = (next: UserTarget) => {
    queryClient.removeQueries({ queryKey: queryKeys.admin.user(next.by, next.value) });
    setTarget(next);
  };
  return { user, find, forget: () => setTarget(null), query };
}
