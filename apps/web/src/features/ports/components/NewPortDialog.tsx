import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import {
  EMAIL_NOT_CONFIRMED_MESSAGE,
  PORT_COUNTS,
  PORT_PERIODS,
  PORT_TIMERS,
  PORT_VOLUMES_GB,
} from '@pm/contracts';
import { type Cents, formatUsd } from '@pm/money';
import { useEffect, useState } from 'react';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { isEmailNotConfirmed } from '../../account/emailConfirmation.ts';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { type PortOrder, useCities, useCountries, useCreatePackage, usePrice, useStates } from '../api.ts';
import { canBuy, whitelistState } from '../rules.ts';

const TOAST = { autoHideMs: 3000, severity: 'error' as const };
const UNLIMITED = 'unlimited';

/** The New Port dialog (rules §2): every field, the live price, Buy (disabled per rules §5) and its confirm step. */
export function NewPortDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const showToast = useToast();
  const { data: account } = useMyAccount();
  const [volume, setVolume] = useState<string>('1');
  const [count, setCount] = useState(100);
  const [period, setPeriod] = useState(1);
  const [country, setCountry] = useState('');
  const [state, setState] = useState('');
  const [city, setCity] = useState('');
  const [conn, setConn] = useState<'wifi' | 'mobile' | 'both'>('both');
  const [access, setAccess] = useState<'auth' | 'whitelist'>('auth');
  const [whitelist, setWhitelist] = useState('');
  const [rotation, setRotation] = useState<string>('5');
  const [confirming, setConfirming] = useState(false);
  const isUnlimited = volume === UNLIMITED;
  const countries = useCountries();
  const states = useStates(country);
  const cities = useCities(country, state);
  const wl = whitelistState(whitelist, { touched: true, isUnlimited });
  const order: PortOrder | null =
    country === ''
      ? null
      : {
          time_period: period,
          traffic: isUnlimited ? { type: 'unlimit' } : { type: 'limit', amount: Number(volume) },
          geo: { country, ...(state ? { state } : {}), ...(city ? { city } : {}), connection_type: conn },
          access: {
            type: access,
            ...(isUnlimited ? {} : { port_amount: count }),
            ...(access === 'whitelist' ? { whitelist_ips: whitelist } : {}),
          },
          switch: rotation === 'api' ? { type: 'api' } : { type: 'timer', timer: Number(rotation) },
        };
  const price = usePrice(order);
  const create = useCreatePackage();

  useEffect(() => {
    if (countries.isError) showToast('Error getting countries list', TOAST);
  }, [countries.isError, showToast]);
  useEffect(() => {
    if (states.isError) showToast('Error while getting regions list', TOAST);
  }, [states.isError, showToast]);
  useEffect(() => {
    if (cities.isError) showToast('Error while getting cities list', TOAST);
  }, [cities.isError, showToast]);
  useEffect(() => {
    if (price.isError) showToast('Error getting port price', TOAST);
  }, [price.isError, showToast]);

  const priceC = price.data?.price;
  const buyable =
    canBuy(priceC, account?.balanceC) &&
    (access === 'auth' || wl.canSave) &&
    order !== null &&
    !price.isFetching;
  const handleBuy = () => {
    if (!order || priceC === undefined) return;
    create.mutate(
      { order, price: priceC },
      {
        onSuccess: () => {
          setConfirming(false);
          onClose();
        },
        onError: (e) => {
          setConfirming(false);
          showToast(isEmailNotConfirmed(e) ? EMAIL_NOT_CONFIRMED_MESSAGE : 'Error creating port', TOAST);
        },
      },
    );
  };
  const select = (
    label: string,
    value: string | number,
    onChange: (v: string) => void,
    items: [string | number, string][],
    testId: string,
  ) => (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      slotProps={{ htmlInput: { 'data-testid': testId } }}
      fullWidth
    >
      {items.map(([v, text]) => (
        <MenuItem key={String(v)} value={v}>
          {text}
        </MenuItem>
      ))}
    </TextField>
  );

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="new-port-title">
      <DialogTitle id="new-port-title">New Port</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {select(
              'Volume',
              volume,
              setVolume,
              [
                ...PORT_VOLUMES_GB.map((v): [string, string] => [String(v), `${v} Gb`]),
                [UNLIMITED, 'Unlimited'],
              ],
              'port-volume',
            )}
            {select(
              'Ports',
              isUnlimited ? 1 : count,
              (v) => setCount(Number(v)),
              isUnlimited ? [[1, '1']] : PORT_COUNTS.map((c) => [c, String(c)]),
              'port-count',
            )}
            {select(
              'Period',
              period,
              (v) => setPeriod(Number(v)),
              PORT_PERIODS.map((p) => [p, `${p} day${p === 1 ? '' : 's'}`]),
              'port-period',
            )}
          </Stack>
          {select(
            'Country',
            country,
            (v) => {
              setCountry(v);
              setState('');
              setCity('');
            },
            (countries.data?.countries ?? []).map((c) => [c.code, `${c.name} (${c.count})`]),
            'port-country',
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {select(
              'State',
              state,
              (v) => {
                setState(v);
                setCity('');
              },
              [
                ['', 'Any'],
                ...(states.data?.states ?? []).map((s): [string, string] => [
                  s.name,
                  `${s.name} (${s.count})`,
                ]),
              ],
              'port-state',
            )}
            {select(
              'City',
              city,
              setCity,
              [
                ['', 'Any'],
                ...(cities.data?.cities ?? []).map((c): [string, string] => [
                  c.name,
                  `${c.name} (${c.count})`,
                ]),
              ],
              'port-city',
            )}
          </Stack>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            {select(
              'Connection',
              conn,
              (v) => setConn(v as typeof conn),
              [
                ['wifi', 'WiFi'],
                ['mobile', 'Cellular'],
                ['both', 'Both'],
              ],
              'port-conn',
            )}
            {select(
              'Access',
              access,
              (v) => setAccess(v as typeof access),
              [
                ['auth', 'Login and password'],
                ['whitelist', 'Whitelist'],
              ],
              'port-access',
            )}
            {select(
              'Rotation',
              rotation,
              setRotation,
              [
                ...PORT_TIMERS.map((t): [string, string] => [String(t), `Every ${t} minutes`]),
                ['api', 'By link only'],
              ],
              'port-rotation',
            )}
          </Stack>
          {access === 'whitelist' && (
            <TextField
              size="small"
              label={`Whitelist (up to ${isUnlimited ? 1 : 20} IPv4, comma separated)`}
              value={whitelist}
              onChange={(e) => setWhitelist(e.target.value)}
              error={wl.error !== null}
              helperText={wl.error ?? ' '}
              slotProps={{ htmlInput: { 'data-testid': 'port-whitelist' } }}
            />
          )}
          <Typography data-testid="port-price" variant="h6">
            Price: {priceC === undefined ? '—' : formatUsd(priceC as Cents)}
          </Typography>
          {priceC !== undefined && account && priceC > account.balanceC && (
            <Alert severity="warning">The price exceeds your balance.</Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="contained"
          disabled={!buyable}
          onClick={() => setConfirming(true)}
          data-testid="port-buy"
        >
          Buy
        </Button>
      </DialogActions>
      <Dialog open={confirming} onClose={() => setConfirming(false)} aria-labelledby="port-confirm-title">
        <DialogTitle id="port-confirm-title">Confirm purchase</DialogTitle>
        <DialogContent>
          <Typography>
            Buy {isUnlimited ? 'an unlimited port' : `${volume} Gb on ${count} ports`} for {period} day
            {period === 1 ? '' : 's'} for {priceC === undefined ? '' : formatUsd(priceC as Cents)}?
          </Typography>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button
            variant="contained"
            onClick={handleBuy}
            disabled={create.isPending}
            data-testid="port-confirm"
          >
            Confirm
          </Button>
        </DialogActions>
      </Dialog>
    </Dialog>
  );
}
