import { Alert, Box, Card, CardContent, Stack, Typography } from '@mui/material';
import type { TAccount } from '@pm/contracts';
import { createContext, type ReactNode, useCallback, useContext, useState } from 'react';
import { type AdminClient, AdminError, type AdminUserInfo, toAdminError } from './adminClient.ts';

/** The customer staff are working on: identity data and market account (either may be missing). */
export interface LoadedUser {
  info: AdminUserInfo | null;
  account: TAccount | null;
  userId: string;
  email: string | null;
}

export interface AdminState {
  client: AdminClient;
  user: LoadedUser | null;
  setUser: (user: LoadedUser | null) => void;
  /** Patches the loaded user's account or info after an action. */
  updateUser: (patch: Partial<Pick<LoadedUser, 'info' | 'account'>>) => void;
}

export const AdminContext = createContext<AdminState | null>(null);

export function useAdmin(): AdminState {
  const state = useContext(AdminContext);
  if (!state) throw new Error('AdminContext missing');
  return state;
}

/** One admin action's state: busy while it runs, the error text (rules §8) or the last result. */
export function useAction<A extends unknown[], T>(run: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<T | null>(null);
  const start = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setBusy(true);
      setError(null);
      try {
        const value = await run(...args);
        setResult(value);
        return value;
      } catch (e) {
        setError((e instanceof AdminError ? e : toAdminError(e)).message);
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [run],
  );
  return { busy, error, result, start, setResult, setError };
}

/** A titled card section of a tab. */
export function Section({
  title,
  children,
  testId,
}: {
  title: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Card sx={{ mb: 2 }} data-testid={testId}>
      <CardContent>
        <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 700, mb: 1.5 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}

/** The error line under an action (nothing when there is none). */
export function ActionError({ error, testId }: { error: string | null; testId?: string }) {
  if (!error) return null;
  return (
    <Alert severity="error" sx={{ mt: 1.5 }} data-testid={testId ?? 'admin-error'}>
      {error}
    </Alert>
  );
}

/** The note shown where an action needs a loaded user. */
export function NeedsUser() {
  return (
    <Box sx={{ color: 'text.secondary', fontSize: 14, mb: 1 }} data-testid="admin-needs-user">
      Load a user in User Info first; actions stay disabled until then.
    </Box>
  );
}

/**
 * Horizontal scroll for wide tables, so a phone's page never overflows: below 760 px of card width
 * the table keeps its columns readable and scrolls inside the card instead of squeezing them.
 */
export function TableScroll({ children }: { children: ReactNode }) {
  return <Box sx={{ overflowX: 'auto', maxWidth: '100%', '& table': { minWidth: 760 } }}>{children}</Box>;
}

/** A row of fields and buttons (stacked on a phone), aligned at their tops so helper texts do not shift them. */
export function FieldRow({ children }: { children: ReactNode }) {
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: { sm: 'flex-start' } }}>
      {children}
    </Stack>
  );
}
