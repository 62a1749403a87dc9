import { CssBaseline, ThemeProvider } from '@mui/material';
import type { TEnvironment } from '@pm/contracts';
import { QueryClientProvider } from '@tanstack/react-query';
import { useMemo, useSyncExternalStore } from 'react';
import { BrowserRouter } from 'react-router';
import { ToastProvider } from '../components/ui/Toasts.tsx';
import { createApiClient } from '../lib/api/transport.ts';
import type { AuthSession } from '../lib/auth/session.ts';
import type { Boot } from './boot.ts';
import { AppServicesContext } from './context.tsx';
import { selectEnvironment } from './environment.ts';
import { ConfigErrorScreen, GlobalStateScreen, UnsupportedBrowserScreen } from './FullScreenStates.tsx';
import { createFlagStore, type FlagStore, fullScreenStateOf } from './flags.ts';
import { createQueryClient } from './queryClient.ts';
import { AppRoutes } from './router.tsx';
import { theme } from './theme.ts';

/** The app: what the boot settled (app/boot.ts): an unsupported browser, a configuration error, a failed sign-in, or the routed UI. */
export function App({ boot }: { boot: Boot }) {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {boot.kind === 'unsupported' ? <UnsupportedBrowserScreen /> : <BootedApp boot={boot} />}
    </ThemeProvider>
  );
}

/**
 * App initialisation (rules §4) has ended when the app renders: the boot ran before its code
 * was fetched. The environments file is validated whole here (the boot checked only the sign-in's fields).
 */
function BootedApp({ boot }: { boot: Boot }) {
  const environment = useMemo(
    () =>
      boot.kind === 'ready' || boot.kind === 'failed'
        ? selectEnvironment(boot.file, window.location.origin)
        : null,
    [boot],
  );
  const flags = useMemo(() => {
    const store = createFlagStore();
    if (boot.kind === 'failed') store.set(boot.offline ? { offline: true } : { globalError: true });
    return store;
  }, [boot]);
  const state = fullScreenStateOf(useSyncExternalStore(flags.subscribe, flags.get));
  if (!environment?.ok) return <ConfigErrorScreen />;
  if (state || boot.kind !== 'ready') {
    return <GlobalStateScreen state={state ?? 'error'} support={environment.environment.support} />;
  }
  return <SignedInApp environment={environment.environment} session={boot.session} flags={flags} />;
}

function SignedInApp({
  environment,
  session,
  flags,
}: {
  environment: TEnvironment;
  session: AuthSession;
  flags: FlagStore;
}) {
  const services = useMemo(() => {
    const api = createApiClient({
      baseUrl: environment.apiUrl,
      getAccessToken: () => session.getAccessToken(),
      onSuccess: () => session.confirmSignedIn(),
      onFailure: (action) => {
        if (action === 'sign-in') session.handleUnauthorized().catch(() => flags.set({ globalError: true }));
        else if (action === 'maintenance') flags.set({ maintenance: true });
        else if (action === 'offline') flags.set({ offline: true });
        else flags.set({ globalError: true });
      },
    });
    return { environment, api, session };
  }, [environment, session, flags]);
  const queryClient = useMemo(() => createQueryClient(flags), [flags]);
  return (
    <AppServicesContext.Provider value={services}>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </ToastProvider>
      </QueryClientProvider>
    </AppServicesContext.Provider>
  );
}
