import {
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import {
  EMAIL_NOT_CONFIRMED_MESSAGE,
  ENDPOINTS,
  PORT_REFUND_AMOUNT_TEXT,
  type TPortPackage,
} from '@pm/contracts';
import { type Cents, formatUsd } from '@pm/money';
import { useState } from 'react';
import { useEnvironment } from '../../../app/context.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { callEndpoint } from '../../../lib/api/endpoint.ts';
import { formatDateTime } from '../../../lib/format/time.ts';
import { isEmailNotConfirmed } from '../../account/emailConfirmation.ts';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { useReactivatePackage, useRefundPackage, useSwitchToLogin, useUpdateWhitelist } from '../api.ts';
import { usePortsApi } from '../portsApi.ts';
import { geoText, portRanges, rotationLink, trafficText, whitelistState } from '../rules.ts';

const TOAST = { autoHideMs: 3000, severity: 'error' as const };

function Line({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Stack direction="row" spacing={1} sx={{ overflowWrap: 'anywhere' }}>
      <Typography variant="body2" color="text.secondary" sx={{ minWidth: 110 }}>
        {label}
      </Typography>
      <Typography variant="body2" data-testid={testId} sx={{ fontFamily: 'monospace' }}>
        {value}
      </Typography>
    </Stack>
  );
}

/** The settings sidebar of one package: connection strings, access switch and whitelist, rotation link, refund, reactivate. */
export function PortSettings({ pkg }: { pkg: TPortPackage }) {
  const { portsApiUrl } = useEnvironment();
  const showToast = useToast();
  const { data: account } = useMyAccount();
  const [whitelist, setWhitelist] = useState(pkg.access.whitelist_ips.join(', '));
  const [touched, setTouched] = useState(false);
  const [confirm, setConfirm] = useState<'refund' | 'reactivate' | null>(null);
  const updateWhitelist = useUpdateWhitelist();
  const toLogin = useSwitchToLogin();
  const refund = useRefundPackage();
  const reactivate = useReactivatePackage();
  const ports = usePortsApi();
  const wl = whitelistState(whitelist, { touched, isUnlimited: pkg.traffic.type === 'unlimit' });
  const host = pkg.access.port_service_ip;
  const first = pkg.access.ports[0];
  const isLogin = pkg.access.type === 'auth';
  const creds = isLogin ? `${pkg.access.auth_login}:${pkg.access.auth_password}@` : '';
  const active = pkg.status.type === 'active';

  const saveWhitelist = () =>
    updateWhitelist.mutate(
      { packageId: pkg.id, whitelist },
      {
        onSuccess: () => setTouched(false),
        onError: () => showToast('Error updating whitelist', TOAST),
      },
    );
  const switchToLogin = () =>
    toLogin.mutate(pkg.id, { onError: () => showToast('Error updating whitelist', TOAST) });
  const downloadCsv = async () => {
    try {
      const csv = await callEndpoint(ports, ENDPOINTS.downloadPortTrafficCsv, {
        params: { id: pkg.id },
        ignoreStatuses: [403, 404, 500, 503],
      });
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `package-${pkg.id}-traffic.csv`;
      a.click();
      URL.revokeObjectURL(url);
    } catch {
      showToast('The CSV could not be downloaded', TOAST);
    }
  };
  const runConfirmed = () => {
    const which = confirm;
    setConfirm(null);
    if (which === 'refund')
      refund.mutate(pkg.id, { onError: () => showToast('Error while refunding port', TOAST) });
    if (which === 'reactivate')
      reactivate.mutate(pkg.id, {
        onError: (e) =>
          showToast(
            isEmailNotConfirmed(e) ? EMAIL_NOT_CONFIRMED_MESSAGE : 'Error while reactivating port',
            TOAST,
          ),
      });
  };

  return (
    <Card data-testid="port-settings">
      <CardContent>
        <Stack spacing={1.5}>
          <Typography variant="h6">Package {pkg.id}</Typography>
          <Line label="Location" value={geoText(pkg)} />
          <Line label="Traffic" value={trafficText(pkg)} testId="port-traffic" />
          <Line label="Requests" value={`${pkg.stats.requests} (${pkg.stats.errors} failed)`} />
          {/* Wrong logins or passwords: refused before any request, so never among the failed ones. */}
          <Line
            label="Failed sign-ins"
            value={pkg.stats.auth_fails.toLocaleString('en-US')}
            testId="port-auth-fails"
          />
          <Line label="Ports" value={`${host} ${portRanges(pkg.access.ports)}`} />
          {first !== undefined && (
            <>
              <Line
                label="Exit"
                value={pkg.exits.find((e) => e.port === first)?.ip ?? 'chosen at the first connection'}
                testId="port-exit"
              />
              <Line label="SOCKS5" value={`socks5h://${creds}${host}:${first}`} testId="port-socks" />
              <Line
                label="HTTP"
                value={`http://${creds}${host}:${first + pkg.access.http_port_offset}`}
                testId="port-http"
              />
              <Line
                label="Rotation link"
                value={rotationLink(portsApiUrl, first, pkg.switch.api_key)}
                testId="port-rotation-link"
              />
            </>
          )}
          <Line
            label="Rotation"
            value={
              pkg.switch.type === 'timer'
                ? `every ${pkg.switch.timer} minutes, or by link`
                : 'by link (at most every 5 minutes)'
            }
          />
          <Line label="Until" value={formatDateTime(pkg.date_finish)} />
          <Typography variant="subtitle2">Access: {isLogin ? 'login and password' : 'whitelist'}</Typography>
          {isLogin && (
            <Line
              label="Login"
              value={`${pkg.access.auth_login} / ${pkg.access.auth_password}`}
              testId="port-login"
            />
          )}
          <TextField
            size="small"
            label="Whitelist (comma-separated IPv4)"
            value={whitelist}
            onChange={(e) => {
              setWhitelist(e.target.value);
              setTouched(true);
            }}
            error={wl.error !== null}
            helperText={wl.error ?? ' '}
            slotProps={{ htmlInput: { 'data-testid': 'port-settings-whitelist' } }}
          />
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1 }}>
            <Button
              variant="outlined"
              disabled={!wl.canSave || updateWhitelist.isPending}
              onClick={saveWhitelist}
            >
              {isLogin ? 'Switch to whitelist' : 'Save whitelist'}
            </Button>
            {!isLogin && (
              <Button variant="outlined" onClick={switchToLogin} disabled={toLogin.isPending}>
                Switch to login
              </Button>
            )}
            <Button onClick={() => void downloadCsv()} data-testid="port-traffic-csv">
              Traffic CSV
            </Button>
            {pkg.refundable && (
              <Button color="error" onClick={() => setConfirm('refund')} data-testid="port-refund">
                Refund
              </Button>
            )}
            {pkg.status.type === 'suspend' && (
              <Button
                variant="contained"
                disabled={!account || account.balanceC < pkg.price}
                onClick={() => setConfirm('reactivate')}
                data-testid="port-reactivate"
              >
                Reactivate
              </Button>
            )}
          </Stack>
          {!active && (
            <Typography color="text.secondary">
              Status: {pkg.status.type}
              {pkg.status.reason ? ` (${pkg.status.reason})` : ''}
            </Typography>
          )}
        </Stack>
      </CardContent>
      <Dialog open={confirm !== null} onClose={() => setConfirm(null)} aria-labelledby="port-action-title">
        <DialogTitle id="port-action-title">
          {confirm === 'refund' ? 'Refund package' : 'Reactivate package'}
        </DialogTitle>
        <DialogContent>
          <Typography>
            {confirm === 'refund'
              ? `Refund up to ${formatUsd(pkg.price as Cents)} to your balance? ${PORT_REFUND_AMOUNT_TEXT}`
              : `Reactivate for ${pkg.time_period} day${pkg.time_period === 1 ? '' : 's'} for ${formatUsd(pkg.price as Cents)}?`}
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirm(null)}>Cancel</Button>
          <Button variant="contained" onClick={runConfirmed} data-testid="port-action-confirm">
            Confirm
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
}
