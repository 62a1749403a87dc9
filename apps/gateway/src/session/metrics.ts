import { Counter, Gauge, Registry } from 'prom-client';

/** Prometheus metrics of one gateway instance (own registry, so several gateways can run in one process). */
export interface GatewayMetrics {
  registry: Registry;
  connections: Counter<'kind'>;
  /** Pre-bound children of the hot counters (no label hashing per connection). */
  authConnections: Counter.Internal;
  noAuthConnections: Counter.Internal;
  activeConnections: Gauge;
  requests: Counter<'result'>;
  requestsOk: Counter.Internal;
  bytesUp: Counter.Internal;
  bytesDown: Counter.Internal;
  handshakeFailures: Counter<'reason'>;
  agentsOnline: Gauge;
}

/** `openConnections` is read when metrics are scraped. */
export function createGatewayMetrics(
  nodeId: string,
  openConnections: () => number = () => 0,
): GatewayMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ node: nodeId });
  const connections = new Counter({
    name: 'gateway_socks_connections_total',
    help: 'Customer SOCKS connections accepted, by port kind (auth or noauth)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'gateway_socks_requests_total',
    help: "CONNECT requests, by result (ok, rep-N with the agent's SOCKS reply code, agent-offline, open-timeout, lease-share, agent-busy)",
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const bytes = new Counter({
    name: 'gateway_relayed_bytes_total',
    help: 'Payload bytes relayed, by direction (up: customer to proxy, down: proxy to customer)',
    labelNames: ['direction'] as const,
    registers: [registry],
  });
  return {
    registry,
    connections,
    authConnections: connections.labels('auth'),
    noAuthConnections: connections.labels('noauth'),
    activeConnections: new Gauge({
      name: 'gateway_socks_active_connections',
      help: 'Customer SOCKS connections currently open',
      registers: [registry],
      collect() {
        this.set(openConnections());
      },
    }),
    requests,
    requestsOk: requests.labels('ok'),
    bytesUp: bytes.labels('up'),
    bytesDown: bytes.labels('down'),
    handshakeFailures: new Counter({
      name: 'gateway_socks_handshake_failures_total',
      help: 'SOCKS handshakes that failed before a CONNECT was relayed, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    agentsOnline: new Gauge({
      name: 'gateway_agents_online',
      help: 'Agents with a live tunnel to this node',
      registers: [registry],
    }),
  };
}
