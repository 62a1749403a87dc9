import BuildIcon from '@mui/icons-material/Build';
import CloudOffIcon from '@mui/icons-material/CloudOff';
import ReportProblemIcon from '@mui/icons-material/ReportProblem';
import SettingsIcon from '@mui/icons-material/Settings';
import { Typography } from '@mui/material';
import type { TEnvironment } from '@pm/contracts';
import { FullScreenMessage } from '../components/ui/FullScreenMessage.tsx';
import { SupportContacts } from '../components/ui/SupportContacts.tsx';
import { IE_TEXT } from '../lib/browser.ts';
import { CONFIG_ERROR_TEXT } from './environment.ts';
import type { FullScreenState } from './flags.ts';
import { PRODUCT_NAME } from './product.ts';

export const OFFLINE_TEXT =
  "Can't connect to the server. Check your Internet connection and reload the page.";
export const MAINTENANCE_TEXT = `The ${PRODUCT_NAME} network is down for quick maintenance. Please check back in a minute.`;
export const GLOBAL_ERROR_TEXT =
  "We had an error. Try reloading the page or contact us if that doesn't help.";

/** Offline, maintenance or global error: replaces the whole app until the page is reloaded. */
export function GlobalStateScreen({
  state,
  support,
}: {
  state: Exclude<FullScreenState, null>;
  support: TEnvironment['support'];
}) {
  if (state === 'offline') {
    return (
      <FullScreenMessage icon={<CloudOffIcon />} testId="state-offline">
        <Typography>{OFFLINE_TEXT}</Typography>
      </FullScreenMessage>
    );
  }
  const isMaintenance = state === 'maintenance';
  return (
    <FullScreenMessage
      icon={isMaintenance ? <BuildIcon /> : <ReportProblemIcon />}
      testId={isMaintenance ? 'state-maintenance' : 'state-error'}
    >
      <Typography>{isMaintenance ? MAINTENANCE_TEXT : GLOBAL_ERROR_TEXT}</Typography>
      <SupportContacts {...support} />
    </FullScreenMessage>
  );
}

export function ConfigErrorScreen() {
  return (
    <FullScreenMessage icon={<SettingsIcon />} testId="state-config-error">
      <Typography>{CONFIG_ERROR_TEXT}</Typography>
    </FullScreenMessage>
  );
}

export function UnsupportedBrowserScreen() {
  return (
    <FullScreenMessage testId="state-unsupported-browser">
      <Typography>{IE_TEXT}</Typography>
    </FullScreenMessage>
  );
}
