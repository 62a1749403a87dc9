import AddToHomeScreenIcon from '@mui/icons-material/AddToHomeScreen';
import { Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useSyncExternalStore } from 'react';
import { installPromptStore, isInstalledApp } from '../../../lib/pwa.ts';

/** What the installed app is, in the page's words (the e2e reads them). */
export const APP_DOES = [
  'Opens this site in its own window from an icon on your home screen, signed in to the same account.',
  'Every screen of the site, at phone size: the shop, My Proxies, ports, payments and the rest.',
  'Updates itself whenever the site does: there is nothing to download or update by hand.',
  'Without a connection it still opens, and says it cannot reach the server.',
];
export const APP_DOES_NOT = [
  'It is not a VPN or a proxy client: it does not send your phone’s traffic through your proxies. Use a proxy’s credentials in the apps that take a proxy.',
  'It is not in Google Play and has no notifications; nothing works offline beyond that message.',
];
export const INSTALL_STEPS = [
  'Open this site in Chrome on your Android phone and sign in.',
  'Tap the ⋮ menu, then “Install app” (or “Add to Home screen”), and confirm.',
  'Open ProxyMarket from your home screen.',
];

function Lines({ items, title }: { items: readonly string[]; title: string }) {
  return (
    <>
      <Typography variant="subtitle2" sx={{ mt: 2, mb: 1 }}>
        {title}
      </Typography>
      <Stack component="ul" spacing={0.5} sx={{ pl: 2.5, my: 0 }}>
        {items.map((s) => (
          <Typography component="li" key={s} color="text.secondary">
            {s}
          </Typography>
        ))}
      </Stack>
    </>
  );
}

/**
 * Downloads' Android entry (rules §2): the site itself, installable as an app (a web app manifest
 * and an offline shell), with an Install button where the browser offers it, the steps where it
 * does not, and what the app does and does not do.
 */
export function InstallAppCard() {
  const canInstall = useSyncExternalStore(installPromptStore.subscribe, installPromptStore.canInstall);
  const installed = isInstalledApp();
  return (
    <Card data-testid="download-android">
      <CardContent>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1, flexWrap: 'wrap' }}>
          <AddToHomeScreenIcon color="primary" />
          <Typography variant="h6" component="h2">
            Android app
          </Typography>
          <Chip size="small" label="Install this site as an app" />
        </Stack>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          The Android app is this site, installed from the browser: no store and no separate download.
        </Typography>
        {installed && (
          <Typography data-testid="app-installed" sx={{ mb: 1 }}>
            You are using the installed app.
          </Typography>
        )}
        {!installed && canInstall && (
          <Button
            variant="contained"
            startIcon={<AddToHomeScreenIcon />}
            onClick={() => void installPromptStore.install()}
          >
            Install app
          </Button>
        )}
        {!installed && <Lines title="Install" items={INSTALL_STEPS} />}
        <Lines title="What it does" items={APP_DOES} />
        <Lines title="What it does not do" items={APP_DOES_NOT} />
      </CardContent>
    </Card>
  );
}
