import DownloadIcon from '@mui/icons-material/Download';
import ExtensionIcon from '@mui/icons-material/Extension';
import { Alert, Button, Card, CardContent, Chip, Skeleton, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Page } from '../../../components/ui/Page.tsx';
import { queryKeys } from '../../../lib/query/keys.ts';
import { ADDON_MISSING_TEXT, ADDON_ZIP_URL, fetchIsAddonOffered } from '../addon.ts';
import { InstallAppCard } from '../components/InstallAppCard.tsx';

const STEPS = (site: string) => [
  'Download the zip and unzip it into a folder you keep (the browser loads the add-on from there).',
  'Open chrome://extensions (Edge: edge://extensions) and switch on Developer mode.',
  'Click “Load unpacked” and choose the unzipped folder. Pin ProxyMarket from the puzzle-piece menu.',
  `Open the add-on, keep the site address ${site} and click Sign in: you sign in on our sign-in page as on this site.`,
  'Your active proxies are listed. Click Use on one: the add-on adds this browser’s address to that proxy’s no-auth whitelist and sends the browser’s traffic through its no-auth port. Direct connection switches it off.',
];

/** Downloads (rules §2): the browser add-on built in this repository, with install steps, and the site as an installable Android app. */
export function DownloadsPage() {
  return (
    <Page title="Downloads">
      <Stack spacing={2}>
        <Card data-testid="download-addon">
          <CardContent>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1, flexWrap: 'wrap' }}>
              <ExtensionIcon color="primary" />
              <Typography variant="h6" component="h2">
                Browser add-on
              </Typography>
              <Chip size="small" label="Chrome, Edge and other Chromium browsers" />
            </Stack>
            <Typography color="text.secondary" sx={{ mb: 2 }}>
              Sign in, see your proxies and use one in this browser with one click, through its no-auth port.
            </Typography>
            <AddonDownload />
            <Typography variant="subtitle2" sx={{ mt: 2, mb: 1 }}>
              Install
            </Typography>
            <Stack component="ol" spacing={0.5} sx={{ pl: 2.5, my: 0 }}>
              {STEPS(window.location.origin).map((s) => (
                <Typography component="li" key={s} color="text.secondary">
                  {s}
                </Typography>
              ))}
            </Stack>
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              Firefox is not supported yet.
            </Typography>
          </CardContent>
        </Card>
        <InstallAppCard />
      </Stack>
    </Page>
  );
}

/** The download button once the site has the add-on's zip; else why there is none. */
function AddonDownload() {
  const { data: isOffered } = useQuery({
    queryKey: queryKeys.content.addon(),
    queryFn: ({ signal }) => fetchIsAddonOffered(signal),
    staleTime: 60_000,
  });
  if (isOffered === undefined) return <Skeleton variant="rounded" width={220} height={36} />;
  if (!isOffered) {
    return (
      <Alert severity="warning" data-testid="addon-missing">
        {ADDON_MISSING_TEXT}
      </Alert>
    );
  }
  return (
    <Button variant="contained" startIcon={<DownloadIcon />} href={ADDON_ZIP_URL} download>
      Download add-on (.zip)
    </Button>
  );
}
