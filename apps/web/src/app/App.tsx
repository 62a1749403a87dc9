import { CssBaseline, ThemeProvider } from '@mui/material';
import type { TEnvironment } from '@pm/contracts';
import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { BrowserRouter } from 'react-router';
import { FullScreenSpinner } from '../components/ui/FullScreenMessage.tsx';
import { ToastProvider } from '../components/ui/Toasts.tsx';
import { createApiClient } from '../lib/api/transport.ts';
import { type AuthSession, initAuth } from '../lib/auth/session.ts';
import { isInternetExplorer } from '../lib/browser.ts';
import { AppServicesContext } from './context.tsx';
import { type EnvironmentResult, loadEnvironment } from './environment.ts';
import { ConfigErrorScreen, GlobalStateScreen, UnsupportedBrowserScreen } from './FullScreenStates.tsx';
import { createFlagStore, type FlagStore, fullScreenStateOf } from './flags.ts';
import { createQueryClient } from './queryClient.ts';
import { AppRoutes } from './router.tsx';
import { theme } from './theme.ts';

/** The app: browser check, environment, sign-in, then the routed UI. */
export function App() {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {isInternetExplorer(navigator.userAgent) ? <UnsupportedBrowserScreen /> : <EnvironmentGate />}
    </ThemeProvider>
  );
}

function EnvironmentGate() {
  const [result, setResult] = useState<EnvironmentResult | null>(null);
  useEffect(() => {
    let live = true;
    void loadEnvironment(window.location.origin).then((r) => {
      if (live) setResult(r);
    });
    return () => {
      live = false;
    };
  }, []);
  if (result === null) return <FullScreenSpinner label="Loading" />;
  if (!result.ok) return <ConfigErrorScreen />;
  return <AuthGate environment={result.environment} />;
}

/** App initialisation (rules §4): NO, IN_PROGRESS, YES. */
type InitState = { step: 'NO' } | { step: 'IN_PROGRESS' } | { step: 'YES'; session: AuthSession };

function AuthGate({ environment }: { environment: TEnvironment }) {
  const flags = useMemo(createFlagStore, []);
  const [init, setInit] = useState<InitState>({ step: 'NO' });
  useEffect(() => {
    setInit({ step: 'IN_PROGRESS' });
    initAuth(environment).then(
      (r) => {
        // While redirecting to the sign-in host the spinner stays.
        if (r.kind === 'ready') setInit({ step: 'YES', session: r.session });
      },
      (e: unknown) => {
        console.error('sign-in initialisation failed', e);
        // fetch() rejects with a TypeError when the sign-in host cannot be reached at all.
        flags.set(e instanceof TypeError ? { offline: true } : { globalError: true });
      },
    );
  }, [environment, flags]);

  const state = fullScreenStateOf(useSyncExternalStore(flags.subscribe, flags.get));
  if (state) return <GlobalStateScreen state={state} support={environment.support} />;
  if (init.step !== 'YES') return <FullScreenSpinner label="Signing in" />;
  return <SignedInApp environment={environment} session={init.session} flags={flags} />;
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
