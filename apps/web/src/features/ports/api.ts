import { type BodyOf, ENDPOINTS, type TPortPackage } from '@pm/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DATA_REFRESH_MS } from '../../app/queryClient.ts';
import { callEndpoint } from '../../lib/api/endpoint.ts';
import { invalidateBalance, invalidatePorts } from '../../lib/query/invalidate.ts';
import { queryKeys } from '../../lib/query/keys.ts';
import { useMyAccount } from '../account/useMyAccount.ts';
import { usePortsApi } from './portsApi.ts';

/** Statuses the Ports page answers with its own toasts (rules §8), not the global error. */
const HANDLED = [400, 402, 403, 404, 409, 429, 503] as const;

/** The New-port request without the user and price (what the dialog edits), as the contract takes it. */
export type PortOrder = Omit<BodyOf<typeof ENDPOINTS.createPortPackage>, 'user_id' | 'user_email' | 'price'>;

/** The caller's id (the account's `userID`) the ports calls name. */
export function useUserId(): string {
  return useMyAccount().data?.userID ?? '';
}

/** The caller's packages (`GET /users/{id}/packages`), refreshed every 20 s. */
export function usePackages() {
  const ports = usePortsApi();
  const userId = useUserId();
  return useQuery({
    queryKey: queryKeys.ports.packages(userId),
    queryFn: ({ signal }) =>
      callEndpoint(ports, ENDPOINTS.listPortPackages, {
        params: { id: userId },
        signal,
        ignoreOffline: true,
      }),
    refetchInterval: DATA_REFRESH_MS,
    enabled: userId !== '',
  });
}

/** The live price of an order (`POST /price`); the last price stays while the next loads. */
export function usePrice(order: PortOrder | null) {
  const ports = usePortsApi();
  return useQuery({
    queryKey: queryKeys.ports.price(order),
    queryFn: ({ signal }) =>
      callEndpoint(ports, ENDPOINTS.quotePortPrice, {
        body: {
          time_period: order!.time_period,
          traffic: order!.traffic,
          geo: order!.geo,
          access: order!.access,
        },
        ignoreStatuses: HANDLED,
        signal,
      }),
    enabled: order !== null && order.geo.country !== '',
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useCountries() {
  const ports = usePortsApi();
  return useQuery({
    queryKey: queryKeys.ports.countries(),
    queryFn: ({ signal }) =>
      callEndpoint(ports, ENDPOINTS.listPortCountries, { signal, ignoreStatuses: HANDLED }),
    retry: false,
  });
}

export function useStates(country: string) {
  const ports = usePortsApi();
  return useQuery({
    queryKey: queryKeys.ports.states(country),
    queryFn: ({ signal }) =>
      callEndpoint(ports, ENDPOINTS.listPortStates, {
        query: { country },
        signal,
        ignoreStatuses: HANDLED,
      }),
    enabled: country !== '',
    retry: false,
  });
}

export function useCities(country: string, state: string) {
  const ports = usePortsApi();
  return useQuery({
    queryKey: queryKeys.ports.cities(country, state),
    queryFn: ({ signal }) =>
      callEndpoint(ports, ENDPOINTS.listPortCities, {
        query: { country, state },
        signal,
        ignoreStatuses: HANDLED,
      }),
    enabled: country !== '' && state !== '',
    retry: false,
  });
}

/** One mutation of the Ports page; on success the list and the balance reload. */
function usePortsMutation<V>(run: (ports: ReturnType<typeof usePortsApi>, v: V) => Promise<TPortPackage>) {
  const ports = usePortsApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (v: V) => run(ports, v),
    // A purchase, reactivation or refund moves money: the balance and the payments reload too.
    onSettled: () => Promise.all([invalidatePorts(queryClient), invalidateBalance(queryClient)]),
  });
}

export function useCreatePackage() {
  const userId = useUserId();
  return usePortsMutation((ports, v: { order: PortOrder; price: number }) =>
    callEndpoint(ports, ENDPOINTS.createPortPackage, {
      body: { ...v.order, user_id: userId, price: v.price },
      ignoreStatuses: HANDLED,
    }),
  );
}

export function useUpdateWhitelist() {
  return usePortsMutation((ports, v: { packageId: string; whitelist: string }) =>
    callEndpoint(ports, ENDPOINTS.updatePortWhitelist, {
      body: { package_id: v.packageId, whitelist_ips: v.whitelist },
      ignoreStatuses: HANDLED,
    }),
  );
}

export function useSwitchToLogin() {
  return usePortsMutation((ports, id: string) =>
    callEndpoint(ports, ENDPOINTS.switchPortToLogin, { params: { id }, ignoreStatuses: HANDLED }),
  );
}

export function useRefundPackage() {
  return usePortsMutation((ports, id: string) =>
    callEndpoint(ports, ENDPOINTS.refundPortPackage, { params: { id }, ignoreStatuses: HANDLED }),
  );
}

export function useReactivatePackage() {
  return usePortsMutation((ports, id: string) =>
    callEndpoint(ports, ENDPOINTS.reactivatePortPackage, { params: { id }, ignoreStatuses: HANDLED }),
  );
}
