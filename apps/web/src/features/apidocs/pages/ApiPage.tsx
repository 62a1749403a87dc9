import { Alert, Card, CardContent, Skeleton, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEnvironment } from '../../../app/context.tsx';
import { Page } from '../../../components/ui/Page.tsx';
import { useMyAccount } from '../../account/useMyAccount.ts';
import { ApiKeysCard } from '../components/ApiKeysCard.tsx';
import { CodeBlock, OperationCard } from '../components/OperationCard.tsx';
import { PortsApiCard } from '../components/PortsApiCard.tsx';
import { SocksFieldsCard } from '../components/SocksFieldsCard.tsx';
import { WebhooksCard } from '../components/WebhooksCard.tsx';
import {
  type CurlContext,
  curlLine,
  exampleUrl,
  readOperations,
  readSocksFields,
  tokenForm,
} from '../document.ts';
import { publicDocQuery } from '../queries.ts';

/**
 * API documentation (rules §2 and 7), rendered from the public OpenAPI document the API serves: the
 * token request first, then each operation with its parameters, a request and an answer example
 * and a curl line with this environment's addresses and the visitor's email; API keys managed here.
 */
export function ApiPage() {
  const environment = useEnvironment();
  const { data: account } = useMyAccount();
  const doc = useQuery(publicDocQuery(environment.apiUrl));
  const ctx: CurlContext = {
    apiUrl: environment.apiUrl,
    email: account?.email || 'you@example.com',
    clientId: environment.publicApiClient?.clientId ?? 'CLIENT_ID',
  };
  const ops = doc.data ? readOperations(doc.data, environment.apiUrl) : [];
  const docUrl = `${environment.apiUrl.replace(/\/+$/, '')}/api/openapi.json`;

  return (
    <Page title="API">
      <Stack spacing={2}>
        <Card>
          <CardContent>
            <Typography sx={{ mb: 1 }}>
              Everything the shop and My Proxies do with leases is available to your own programs. Every call
              needs <code>Authorization: Bearer $TOKEN</code>, where <code>$TOKEN</code> is an access token
              from the token request below (valid a few minutes) or one of your API keys; without it the
              answer is 403. Amounts are integer cents.
            </Typography>
            <Typography sx={{ mb: 1 }} data-testid="api-keys-advice">
              For scripts, use an API key: it keeps your password out of the script, works with two-factor
              sign-in and can be revoked on its own. The token request is for trying the API by hand; its{' '}
              <code>client_id</code> is the product's public API client, which has no secret.
            </Typography>
            <Typography color="text.secondary">
              The OpenAPI document for client generators: <code>{docUrl}</code>
            </Typography>
          </CardContent>
        </Card>
        <ApiKeysCard />
        <PortsApiCard />
        {doc.isPending && <Skeleton variant="rounded" height={320} />}
        {doc.isError && (
          <Alert severity="error">
            The API description could not be loaded. Reload the page to try again.
          </Alert>
        )}
        <SocksFieldsCard fields={readSocksFields(doc.data)} />
        {ops.map((op) => {
          const request = op.isToken
            ? `POST ${op.baseUrl}${op.path}\nContent-Type: application/x-www-form-urlencoded\n\n${new URLSearchParams(tokenForm(ctx)).toString()}`
            : `${op.method} ${exampleUrl(op)}${op.bodyExample !== undefined ? `\n\n${JSON.stringify(op.bodyExample, null, 2)}` : ''}`;
          return (
            <OperationCard key={op.operationId} op={op} curl={curlLine(op, ctx)} requestText={request} />
          );
        })}
        <WebhooksCard />
        {ops.length > 0 && (
          <Card>
            <CardContent>
              <Typography variant="subtitle2" gutterBottom>
                Errors
              </Typography>
              <CodeBlock
                label="error body"
                code={JSON.stringify(
                  { error: 'CONFLICT', message: 'Price changed', errorCode: 'priceChanged', requestId: '…' },
                  null,
                  2,
                )}
              />
              <Typography color="text.secondary" sx={{ mt: 1 }}>
                Errors answer with this body; <code>errorCode</code> tells the refusals of a purchase or
                refund apart. 429 means too many calls: wait for <code>Retry-After</code> seconds.
              </Typography>
            </CardContent>
          </Card>
        )}
      </Stack>
    </Page>
  );
}
