import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Link,
  List,
  ListItem,
  ListItemText,
  Stack,
  Typography,
} from '@mui/material';
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_DELIVERY_ERROR_MEANINGS,
  WEBHOOK_DELIVERY_ERRORS,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryErrorClass,
} from '@pm/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi, useEnvironment } from '../../../app/context.tsx';
import { formatDateTime } from '../../../lib/format/time.ts';
import { invalidateWebhooks } from '../../../lib/query/invalidate.ts';
import {
  createWebhook,
  deleteWebhook,
  pingWebhook,
  webhookDeliveriesQuery,
  webhooksQuery,
} from '../queries.ts';
import { CreateForm } from './CreateForm.tsx';
import { CodeBlock } from './OperationCard.tsx';

const SIGNATURE_CHECK = `// Node: check PM-Signature before trusting a delivery
const [t, v1] = header.split(',').map((p) => p.split('=')[1]);
const mac = crypto.createHmac('sha256', secret).update(\`\${t}.\${rawBody}\`).digest('hex');
const ok = Math.abs(Date.now() / 1000 - Number(t)) <= 300 &&
  crypto.timingSafeEqual(Buffer.from(mac, 'hex'), Buffer.from(v1, 'hex'));`;

const ERROR_CLASSES = Object.keys(WEBHOOK_DELIVERY_ERRORS) as WebhookDeliveryErrorClass[];

/** The devnet's inbox, when this environment has one: the one private address webhooks reach here. */
function InboxNote({ inbox }: { inbox: { origin: string; pageUrl: string } }) {
  return (
    <Alert severity="info" sx={{ mb: 2 }} data-testid="webhook-inbox">
      This local setup has a webhook inbox, the only private address webhooks may reach here: add{' '}
      <Box component="code" sx={{ wordBreak: 'break-all' }}>
        {inbox.origin}/hooks/NAME
      </Box>{' '}
      (any name) and see each delivery, with its signature checked, at{' '}
      <Link href={inbox.pageUrl} target="_blank" rel="noopener" sx={{ wordBreak: 'break-all' }}>
        {inbox.pageUrl}
      </Link>
      .
    </Alert>
  );
}

/** What a failed delivery's error says: its class only, never an address. */
function DeliveryErrors() {
  return (
    <>
      <Typography variant="subtitle2" sx={{ mt: 2 }} gutterBottom>
        When a delivery fails
      </Typography>
      <Typography color="text.secondary" variant="body2" component="div" data-testid="webhook-errors">
        The log names the class of failure, never an address:
        <Box component="ul" sx={{ my: 0.5, pl: 3 }}>
          {ERROR_CLASSES.map((c) => (
            <li key={c}>
              <code>{WEBHOOK_DELIVERY_ERRORS[c]}</code>: {WEBHOOK_DELIVERY_ERROR_MEANINGS[c]}
            </li>
          ))}
          <li>
            <code>status N</code>: your endpoint answered with HTTP status N, not 2xx
          </li>
        </Box>
      </Typography>
    </>
  );
}

/** Webhook endpoints: add (the signing secret shown once), ping, remove; the delivery log. */
export function WebhooksCard() {
  const api = useApi();
  const { webhookInbox } = useEnvironment();
  const queryClient = useQueryClient();
  const endpoints = useQuery(webhooksQuery(api));
  const deliveries = useQuery(webhookDeliveriesQuery(api));
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => invalidateWebhooks(queryClient);
  const add = useMutation({
    mutationFn: (u: string) => createWebhook(api, u),
    onSuccess: (e) => {
      setSecret(e.secret);
      setUrl('');
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => deleteWebhook(api, id), onSettled: refresh });
  const ping = useMutation({
    mutationFn: (id: string) => pingWebhook(api, id),
    onSettled: refresh,
  });
  const list = endpoints.data?.endpoints ?? [];
  const log = deliveries.data?.deliveries ?? [];

  return (
    <Card data-testid="webhooks">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Webhooks
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          We POST signed events to your HTTPS endpoint: {WEBHOOK_EVENT_TYPES.join(', ')}. Answer with a 2xx
          status within 10 seconds; other answers are retried with growing pauses for about half an hour. Up
          to {MAX_WEBHOOK_ENDPOINTS} endpoints.
        </Typography>
        {webhookInbox && <InboxNote inbox={webhookInbox} />}
        <CreateForm
          label="Endpoint URL"
          placeholder="https://example.com/hooks/proxymarket"
          value={url}
          onChange={setUrl}
          maxLength={500}
          testId="webhook-url"
          grow
          submitLabel="Add endpoint"
          pending={add.isPending}
          onSubmit={(u) => add.mutate(u)}
          error={add.isError ? add.error : null}
          errorFallback="The endpoint could not be added, try again later."
        />
        {secret && (
          <Alert
            severity="success"
            sx={{ mb: 2 }}
            onClose={() => setSecret(null)}
            data-testid="webhook-secret"
          >
            Signing secret (shown only this once):{' '}
            <Box component="code" sx={{ wordBreak: 'break-all' }}>
              {secret}
            </Box>
          </Alert>
        )}
        {list.length > 0 && (
          <List dense disablePadding sx={{ mb: 2 }}>
            {list.map((e) => (
              <ListItem
                key={e.id}
                divider
                disableGutters
                secondaryAction={
                  <Stack direction="row" spacing={1}>
                    <Button size="small" onClick={() => ping.mutate(e.id)} aria-label={`Ping ${e.url}`}>
                      Ping
                    </Button>
                    <Button
                      size="small"
                      color="error"
                      onClick={() => remove.mutate(e.id)}
                      aria-label={`Remove ${e.url}`}
                    >
                      Remove
                    </Button>
                  </Stack>
                }
              >
                <ListItemText primary={e.url} sx={{ pr: 16, wordBreak: 'break-all' }} />
              </ListItem>
            ))}
          </List>
        )}
        <Typography variant="subtitle2" gutterBottom>
          Checking the signature
        </Typography>
        <Typography color="text.secondary" variant="body2" sx={{ mb: 1 }}>
          Each delivery carries <code>PM-Signature: t=&lt;unix seconds&gt;,v1=&lt;hex&gt;</code>, the
          HMAC-SHA256 of <code>t + "." + raw body</code> keyed by the endpoint’s secret.
        </Typography>
        <CodeBlock label="signature check" code={SIGNATURE_CHECK} />
        <DeliveryErrors />
        {log.length > 0 && (
          <>
            <Typography variant="subtitle2" sx={{ mt: 2 }} gutterBottom>
              Deliveries
            </Typography>
            <List dense disablePadding data-testid="webhook-deliveries">
              {log.slice(0, 20).map((d) => (
                <ListItem key={d.id} divider disableGutters>
                  <ListItemText
                    primary={`${d.type} · ${d.status}`}
                    secondary={`${formatDateTime(d.created)} · ${d.attempts} ${d.attempts === 1 ? 'try' : 'tries'}${
                      d.lastStatusCode ? ` · HTTP ${d.lastStatusCode}` : ''
                    }${d.lastError && d.status !== 'delivered' ? ` · ${d.lastError}` : ''}`}
                  />
                </ListItem>
              ))}
            </List>
          </>
        )}
      </CardContent>
    </Card>
  );
}
