import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  IconButton,
  List,
  ListItem,
  ListItemText,
  Typography,
} from '@mui/material';
import { MAX_API_KEYS, type TApiKeyCreated } from '@pm/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../../app/context.tsx';
import { useToast } from '../../../components/ui/Toasts.tsx';
import { copyText } from '../../../lib/clipboard.ts';
import { formatDateTime } from '../../../lib/format/time.ts';
import { invalidateApiKeys } from '../../../lib/query/invalidate.ts';
import { apiKeysQuery, createApiKey, revokeApiKey } from '../queries.ts';
import { CreateForm } from './CreateForm.tsx';

const when = (iso: string | null) => (iso ? formatDateTime(iso) : 'never');

/** The customer's API keys: create with a name (the key is shown once), list, revoke. */
export function ApiKeysCard() {
  const api = useApi();
  const queryClient = useQueryClient();
  const toast = useToast();
  const keys = useQuery(apiKeysQuery(api));
  const [name, setName] = useState('');
  const [created, setCreated] = useState<TApiKeyCreated | null>(null);
  const refresh = () => invalidateApiKeys(queryClient);
  const create = useMutation({
    mutationFn: (n: string) => createApiKey(api, n),
    onSuccess: (key) => {
      setCreated(key);
      setName('');
      void refresh();
    },
  });
  const revoke = useMutation({ mutationFn: (id: string) => revokeApiKey(api, id), onSettled: refresh });
  const list = keys.data?.keys ?? [];

  return (
    <Card data-testid="api-keys">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          API keys
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          An API key is a bearer token for the public API (<code>/api/*</code> only) that does not expire: use
          it as <code>$TOKEN</code> below instead of the token request. Up to {MAX_API_KEYS} keys; revoke one
          you no longer use or that may have leaked.
        </Typography>
        <CreateForm
          label="Key name"
          placeholder="e.g. my scraper"
          value={name}
          onChange={setName}
          maxLength={60}
          testId="api-key-name"
          submitLabel="Create key"
          pending={create.isPending}
          onSubmit={(n) => create.mutate(n)}
          error={create.isError ? create.error : null}
          errorFallback="The key could not be created, try again later."
        />
        {created && (
          <Alert
            severity="success"
            sx={{ mb: 2 }}
            onClose={() => setCreated(null)}
            data-testid="api-key-created"
          >
            <Typography variant="body2" sx={{ mb: 1 }}>
              Your new key “{created.name}”. Copy it now: it is shown only this once.
            </Typography>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
              <Box
                component="code"
                data-testid="api-key-value"
                sx={{
                  wordBreak: 'break-all',
                  fontSize: 13,
                  bgcolor: 'background.paper',
                  p: 0.5,
                  borderRadius: 1,
                }}
              >
                {created.key}
              </Box>
              <IconButton
                aria-label="Copy key"
                size="small"
                onClick={async () => {
                  if (await copyText(created.key)) toast('Copied to clipboard', { autoHideMs: 3000 });
                }}
              >
                <ContentCopyIcon fontSize="small" />
              </IconButton>
            </Box>
          </Alert>
        )}
        {list.length === 0 ? (
          <Typography color="text.secondary">
            {keys.isPending
              ? 'Loading…'
              : keys.isError
                ? 'Your API keys could not be loaded.'
                : 'No API keys yet.'}
          </Typography>
        ) : (
          <List dense disablePadding>
            {list.map((k) => (
              <ListItem
                key={k.id}
                divider
                disableGutters
                secondaryAction={
                  <Button
                    color="error"
                    size="small"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate(k.id)}
                    aria-label={`Revoke ${k.name}`}
                  >
                    Revoke
                  </Button>
                }
              >
                <ListItemText
                  primary={k.name}
                  secondary={`${k.prefix}… · created ${when(k.created)} · last used ${when(k.lastUsed)}`}
                  sx={{ pr: 10 }}
                />
              </ListItem>
            ))}
          </List>
        )}
      </CardContent>
    </Card>
  );
}
