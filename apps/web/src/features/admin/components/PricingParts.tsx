import { Box, Button, CircularProgress, Stack, Typography } from '@mui/material';
import { type QueryKey, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { invalidateAudit, invalidatePrices } from '../../../lib/query/invalidate.ts';
import { toAdminError } from '../adminClient.ts';
import { useAdmin } from '../adminContext.tsx';
import type { Parsed } from '../pricing.ts';
import { adminAccountQuery } from '../queries.ts';
import { ActionError } from './AdminParts.tsx';

/** Rules §9: the price tables are at most 620 px wide and scroll sideways inside that box. */
export const PRICE_TABLE_MAX_WIDTH = 620;
const SAVED_TOAST_MS = 4000;

/** The box a price table lives in: capped at 620 px, scrolling horizontally when the table is wider. */
export function PriceTableBox({ children, testId }: { children: ReactNode; testId: string }) {
  return (
    <Box sx={{ maxWidth: PRICE_TABLE_MAX_WIDTH, overflowX: 'auto' }} data-testid={testId}>
      {children}
    </Box>
  );
}

interface EditorOptions<TData, TDraft, TBody> {
  query: { queryKey: QueryKey; queryFn: () => Promise<TData> };
  save: (body: TBody) => Promise<TData>;
  toDrafts: (data: TData) => TDraft[];
  toBody: (drafts: TDraft[]) => Parsed<TBody>;
  savedText: string;
}

/**
 * One editable price table: the GET through React Query, the drafts staff edit, and Save (PUT).
 * A cell that is not a number stops Save with its row named; the server's 400 text is shown as is;
 * a saved table replaces the drafts with what the server stored and shows a toast.
 */
export function usePriceEditor<TData, TDraft, TBody>(o: EditorOptions<TData, TDraft, TBody>) {
  const queryClient = useQueryClient();
  const showToast = useToast();
  const query = useQuery({ ...o.query, retry: false });
  const [drafts, setDrafts] = useState<TDraft[]>([]);
  const [localError, setLocalError] = useState<string | null>(null);
  const { data } = query;
  const { toDrafts } = o;
  useEffect(() => {
    if (data) setDrafts(toDrafts(data));
  }, [data, toDrafts]);
  const mutation = useMutation({
    mutationFn: o.save,
    onSuccess: (saved) => {
      queryClient.setQueryData(o.query.queryKey, saved);
      showToast(o.savedText, { autoHideMs: SAVED_TOAST_MS });
      // Customers' prices change with the table, and the save is audited.
      return Promise.all([invalidatePrices(queryClient), invalidateAudit(queryClient)]);
    },
  });
  const save = () => {
    const parsed = o.toBody(drafts);
    setLocalError(parsed.ok ? null : parsed.error);
    mutation.reset();
    if (parsed.ok) mutation.mutate(parsed.value);
  };
  const edit = (i: number, patch: Partial<TDraft>) =>
    setDrafts((ds) => ds.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const loadError = query.error ? toAdminError(query.error).message : null;
  const saveError = mutation.error ? toAdminError(mutation.error).message : null;
  return {
    query,
    drafts,
    setDrafts,
    edit,
    save,
    busy: mutation.isPending,
    error: localError ?? saveError,
    loadError,
  };
}

/** The loading, load-error, save-error and Save button frame around a price table. */
export function EditorFrame({
  editor,
  testId,
  children,
  extraButtons,
}: {
  editor: Pick<ReturnType<typeof usePriceEditor>, 'query' | 'save' | 'busy' | 'error' | 'loadError'>;
  testId: string;
  children: ReactNode;
  extraButtons?: ReactNode;
}) {
  if (editor.loadError) return <ActionError error={editor.loadError} testId={`${testId}-load-error`} />;
  if (editor.query.isPending) return <CircularProgress size={24} aria-label="Loading prices" />;
  return (
    <>
      {children}
      <Stack direction="row" spacing={1.5} sx={{ mt: 1.5, flexWrap: 'wrap', rowGap: 1 }}>
        <Button
          variant="contained"
          disabled={editor.busy}
          onClick={editor.save}
          data-testid={`${testId}-save`}
        >
          Save
        </Button>
        {extraButtons}
      </Stack>
      <ActionError error={editor.error} testId={`${testId}-error`} />
    </>
  );
}

/** When and by whom a table was saved last: the staff member's e-mail, their id while it loads or when unknown. */
export function SavedBy({ at, by }: { at: string | null; by: string | null }) {
  const { client } = useAdmin();
  const email = useQuery({
    ...adminAccountQuery(client, by ?? ''),
    // A service (an id with a colon) has no account.
    enabled: by !== null && !by.includes(':'),
    retry: false,
  }).data?.email;
  if (!at) return null;
  return (
    <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="pricing-saved-by">
      Saved {at.slice(0, 16).replace('T', ' ')} UTC{by ? ` by ${email ?? by}` : ''}
    </Typography>
  );
}
