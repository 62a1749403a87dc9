import { Card, CardContent, Typography } from '@mui/material';
import { useEnvironment } from '../../../app/context.tsx';

/** The API page's Ports section: the rotation link and targeting in the user name (docs/gateway.md). */
export function PortsApiCard() {
  const { portsApiUrl } = useEnvironment();
  const base = portsApiUrl.replace(/\/+$/, '');
  return (
    <Card data-testid="ports-api">
      <CardContent>
        <Typography variant="subtitle2" gutterBottom>
          Ports: rotation and targeting
        </Typography>
        <Typography sx={{ mb: 1 }}>
          Rotate a port to another exit with a GET on <code>{`${base}/port/change/ip/PORT/KEY`}</code> (the
          key is on the Ports page; at most once every 5 minutes per port, else 429 with{' '}
          <code>retryAfterSeconds</code>).
        </Typography>
        <Typography sx={{ mb: 1 }}>
          With login access, the user name may narrow the place and pin an exit per connection:{' '}
          <code>LOGIN-country-us-state-ny-city-new_york-session-abc123</code> with the package's password.
          Keys are <code>country</code>, <code>state</code>, <code>city</code> and <code>session</code> (any
          case, <code>_</code> for a space); a session keeps its exit until the port rotates or the exit goes
          offline. A place outside the package is refused.
        </Typography>
        <Typography color="text.secondary">
          Every port also answers as an HTTP proxy (CONNECT and plain HTTP, Basic auth or the whitelist) on
          its number plus the package's <code>access.http_port_offset</code> (its node's setting); a lease's
          HTTP proxy is on its <code>socks.httpPort</code>.
        </Typography>
      </CardContent>
    </Card>
  );
}
