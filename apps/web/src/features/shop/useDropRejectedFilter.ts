import { useEffect } from 'react';
import { useToast } from '../../components/ui/Toasts.tsx';
import { isApiError } from '../../lib/api/transport.ts';
import { dropRejectedField, type ShopFilter } from './filters.ts';

/** How long the "was removed from the search" message stays. */
const DROPPED_TOAST_MS = 6_000;

/**
 * When `GET /agents` refused a value of the filter (400 naming its field: a bookmark or an edited
 * address), drops that value from the address and says so; the rest of the filter keeps applying.
 */
export function useDropRejectedFilter(
  error: unknown,
  filter: ShopFilter,
  setFilter: (next: ShopFilter) => void,
): void {
  const showToast = useToast();
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per refusal, with the filter it refused
  useEffect(() => {
    if (!isApiError(error) || error.status !== 400) return;
    const dropped = dropRejectedField(filter, error.body);
    if (!dropped) return;
    setFilter(dropped.filter);
    showToast(dropped.message, { autoHideMs: DROPPED_TOAST_MS, severity: 'warning' });
  }, [error]);
}
