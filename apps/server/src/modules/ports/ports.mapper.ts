import { randomBytes } from 'node:crypto';
import type { TPortPackage } from '@pm/contracts';
import type { NodeRow, PackageRow } from './ports.repository.ts';
import { isPortRefundable } from './ports.rules.ts';

const ALNUM = 'abcdefghijkmnpqrstuvwxyz23456789';
export function randomText(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

export const DAY_MS = 86_400_000;

/** A stored package as the Ports API answers it (rules §3). */
export function toPackage(
  p: PackageRow,
  node: NodeRow | undefined,
  ports: number[],
  nowMs: number,
  exits: { port: number; ip: string }[] = [],
): TPortPackage {
  return {
    id: p.id,
    price: p.priceC,
    time_period: p.periodDays,
    traffic: { type: p.trafficType, amount: p.trafficGb },
    geo: {
      region: p.region,
      country: p.country,
      state: p.state,
      city: p.city,
      connection_type: p.connectionType,
    },
    switch: { type: p.switchType, timer: p.switchTimer, api_key: p.apiKey },
    access: {
      type: p.accessType,
      auth_login: p.authLogin,
      auth_password: p.authPassword,
      whitelist_ips: p.whitelistIps,
      port_service_ip: node?.publicIp ?? '',
      port_service_host: node?.publicHost ?? '',
      ports,
      // Each package port answers HTTP on itself plus its node's offset (the node's HTTP_PORT_OFFSET).
      http_port_offset: node?.packageHttpOffset ?? 0,
      port_amount: p.portAmount,
    },
    status: { type: p.status, reason: p.suspendReason },
    date_start: p.dateStart.toISOString(),
    date_finish: p.dateFinish.toISOString(),
    stats: {
      requests: p.requests,
      errors: p.errors,
      auth_fails: p.authFails,
      upload: p.upload,
      download: p.download,
    },
    // The rule the refund decides by (ports.rules.ts), on the counters flushed so far.
    refundable: isPortRefundable(p, nowMs),
    exits,
  };
}
