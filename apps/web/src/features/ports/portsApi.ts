import { useMemo } from 'react';
import { useEnvironment, useSession } from '../../app/context.tsx';
import { type ApiClient, createApiClient } from '../../lib/api/transport.ts';

/**
 * The Ports API's client: its own base address (`portsApiUrl`, rules §7), the same bearer token.
 * A 401 signs in again; every other failure is the Ports page's to toast (rules §8, ports toasts),
 * so none of them raises the global error.
 */
export function usePortsApi(): ApiClient {
  const { portsApiUrl } = useEnvironment();
  const session = useSession();
  return useMemo(
    () =>
      createApiClient({
        baseUrl: portsApiUrl,
        getAccessToken: () => session.getAccessToken(),
        onSuccess: () => session.confirmSignedIn(),
        onFailure: (action) => {
          if (action === 'sign-in') session.handleUnauthorized().catch(() => {});
        },
      }),
    [portsApiUrl, session],
  );
}
