import { randomBytes } from 'node:crypto';
import { PORT_REFUND_MAX_BYTES, type TPortPackage } from '@pm/contracts';
import type { NodeRow, PackageRow } from './ports.repository.ts';

/** Each package port answers HTTP proxy requests on its SOCKS5 port plus this offset (docs/gateway.md). */
export const HTTP_PORT_OFFSET = 20000;

const ALNUM = 'abcdefghijkmnpqrstuvwxyz23456789';
export function randomText(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALNUM[b % ALNUM.length];
  return out;
}

export const DAY_MS = 86_400_000;

/** The refund rule (SPEC 9): traffic of 10 MB per Gb bought (rounded up; 10 MB for 1 Gb or unlimited) or less, and less than half of the period passed. */
export function isRefundable(p: PackageRow, nowMs: number): boolean {
  if (p.status !== 'active') return false;
  const allowance = PORT_REFUND_MAX_BYTES * Math.max(1, Math.ceil(p.trafficGb));
  const used = p.upload + p.download;
  const half = (p.dateFinish.getTime() - p.dateStart.getTime()) / 2;
  return used <= allowance && nowMs - p.dateStart.getTime() < half;
}

/** A stored package as the Ports API answers it (SPEC 3). */
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
      http_port_offset: HTTP_PORT_OFFSET,
      port_amount: p.portAmount,
    },
    status: { type: p.status, reason: p.suspendReason },
    date_start: p.dateStart.toISOString(),
    date_finish: p.dateFinish.toISOString(),
    stats: { requests: p.requests, errors: p.errors, upload: p.upload, download: p.download },
    refundable: isRefundable(p, nowMs),
    exits,
  };
}
