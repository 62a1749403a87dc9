import DownloadIcon from '@mui/icons-material/Download';
import { Button, Skeleton, Stack, Typography } from '@mui/material';
import { ENDPOINTS } from '@pm/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { DATA_REFRESH_MS } from '../../../app/queryClient.ts';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { callEndpoint } from '../../../lib/api/endpoint.ts';
import { formatBytes } from '../../../lib/format/agent.ts';
import { queryKeys } from '../../../lib/query/keys.ts';
import { fillHours, trafficCsvName, trafficSummary, trafficTotals } from '../traffic.ts';
import { TrafficChart } from './TrafficChart.tsx';

/**
 * The lease's traffic per hour as the gateway metered it (`GET /leases/{id}/traffic`): a small
 * chart, its totals and a Download CSV of the same rows (`GET /leases/{id}/traffic.csv`). Its own
 * chunk, loaded with the lease detail's Info tab.
 */
export function LeaseTraffic({ leaseId }: { leaseId: string }) {
  const api = useApi();
  const { data, isError } = useQuery({
    queryKey: queryKeys.leases.traffic(leaseId),
    queryFn: ({ signal }) =>
      callEndpoint(api, ENDPOINTS.getLeaseTraffic, {
        params: { id: leaseId },
        signal,
        ignoreStatuses: [403, 404, 500, 503],
      }),
    select: (r) => fillHours(r.hours),
    refetchInterval: DATA_REFRESH_MS,
    retry: false,
  });
  if (isError)
    return (
      <Typography variant="body2" color="text.secondary">
        Traffic could not be loaded.
      </Typography>
    );
  if (!data) return <Skeleton variant="rounded" height={150} />;
  const totals = trafficTotals(data);
  return (
    <Stack spacing={1} data-testid="lease-traffic">
      {data.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          No traffic yet.
        </Typography>
      ) : (
        <>
          <TrafficChart hours={data} />
          <Typography variant="caption" color="text.secondary" data-testid="traffic-summary">
            {trafficSummary(data.length, totals, formatBytes)}
          </Typography>
        </>
      )}
      <CsvDownload leaseId={leaseId} />
    </Stack>
  );
}

/** Fetches the CSV with the caller's token (a plain link would go without it) and saves it. */
function CsvDownload({ leaseId }: { leaseId: string }) {
  const api = useApi();
  const showToast = useToast();
  const [isBusy, setBusy] = useState(false);
  const handleClick = async () => {
    setBusy(true);
    try {
      const csv = await callEndpoint(api, ENDPOINTS.downloadLeaseTrafficCsv, {
        params: { id: leaseId },
        ignoreStatuses: [403, 404, 500, 503],
      });
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = trafficCsvName(leaseId);
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch {
      showToast('The CSV could not be downloaded', { autoHideMs: 3_000, severity: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      size="small"
      startIcon={<DownloadIcon />}
      onClick={() => void handleClick()}
      disabled={isBusy}
      sx={{ alignSelf: 'flex-start', px: 0 }}
    >
      Download CSV
    </Button>
  );
}
