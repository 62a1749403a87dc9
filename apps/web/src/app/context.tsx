import { useMediaQuery } from '@mui/material';
import type { TEnvironment } from '@pm/contracts';
import { createContext, useContext } from 'react';
import type { ApiClient } from '../lib/api/transport.ts';
import type { AuthSession } from '../lib/auth/session.ts';
import { MOBILE_QUERY } from '../lib/browser.ts';

/** What every screen may need once the app is initialised: environment, API client and session. */
export interface AppServices {
  environment: TEnvironment;
  api: ApiClient;
  session: AuthSession;
}

export const AppServicesContext = createContext<AppServices | null>(null);

function useServices(): AppServices {
  const services = useContext(AppServicesContext);
  if (!services) throw new Error('AppServicesContext is missing: render inside <AppProviders>');
  return services;
}

export const useEnvironment = (): TEnvironment => useServices().environment;
export const useApi = (): ApiClient => useServices().api;
export const useSession = (): AuthSession => useServices().session;

/** True at 480 px wide and below (rules §9, mobile breakpoint). */
export const useIsMobile = (): boolean => useMediaQuery(MOBILE_QUERY, { noSsr: true });
