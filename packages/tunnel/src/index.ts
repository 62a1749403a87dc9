export * from './address.ts';
export * from './frames.ts';
export { ipv6Bytes, isLoopbackHost, normalizeIp, sourceKey } from './hosts.ts';
export {
  DEFAULT_WINDOW,
  type LocalSocket,
  Mux,
  type MuxOptions,
  MuxStream,
  type StreamBudget,
  type StreamEnd,
  type TunnelTransport,
} from './mux.ts';
export {
  AGENT_PING_MS,
  RECORD_LIMIT,
  TCP_KEEPALIVE_MS,
  TUNNEL_DROP_WATER,
  TUNNEL_HIGH_WATER,
} from './mux-options.ts';
export { TUNNEL_TLS } from './tls-options.ts';
