/**
 * The ports one gateway node listens on, as settings: the tunnel, metrics, the four SOCKS ports and
 * the leases' HTTP port (a base plus fixed offsets), the no-auth range, the package range, and the
 * HTTP twins of both ranges (each port plus `HTTP_PORT_OFFSET`). `checkPortPlan` refuses a plan in
 * which two of them share a port; `ephemeralWarnings` names the fixed ones that fall in the kernel's
 * ephemeral range, where any outgoing connection of the machine may hold a port for a while.
 */
import { readFileSync } from 'node:fs';
import { LEASE_HTTP_PORT_OFFSET, SOCKS_PORT_OFFSETS } from '@pm/contracts';

/**
 * Defaults of the port settings: every range and twin below 32768, so outside Linux's default
 * ephemeral range (32768-60999), and clear of `npm start`'s 7300s and its SOCKS base 10000
 * (12080-16080). 5,000 package ports: a pool of 1,000 spares and ten 400-port packages.
 */
export const DEFAULT_PORTS = {
  authPortMin: 17000,
  authPortMax: 18999,
  packagePortMin: 19000,
  packagePortMax: 23999,
  /** No-auth 17000-18999 answer HTTP on 25000-26999, packages 19000-23999 on 27000-31999. */
  httpPortOffset: 8000,
  packageSparePorts: 1000,
} as const;

/** A node's port settings; each field is named after the variable that sets it (see `PORT_VARIABLES`). */
export interface PortPlan {
  /** 0: any free port. */
  tunnelPort: number;
  /** Undefined: no metrics listener; 0: any free port. */
  metricsPort?: number | undefined;
  /** 0: the SOCKS ports and the leases' HTTP port are any free ports. */
  socksBasePort: number;
  authPortMin: number;
  authPortMax: number;
  packagePortMin: number;
  packagePortMax: number;
  httpPortOffset: number;
  /** Spare package ports the node keeps bound (0: it sells none). */
  packageSparePorts: number;
  /** Other fixed ports of the same process by variable name (`npm start`'s own listeners). */
  others?: Readonly<Record<string, number>>;
}

/** The variable behind each setting, as `main.ts` and `npm start` read them. */
export const PORT_VARIABLES = {
  tunnelPort: 'GATEWAY_TUNNEL_PORT',
  metricsPort: 'GATEWAY_METRICS_PORT',
  socksBasePort: 'GATEWAY_SOCKS_BASE_PORT',
  authPortMin: 'AUTH_PORT_MIN',
  authPortMax: 'AUTH_PORT_MAX',
  packagePortMin: 'PACKAGE_PORT_MIN',
  packagePortMax: 'PACKAGE_PORT_MAX',
  httpPortOffset: 'HTTP_PORT_OFFSET',
  packageSparePorts: 'PACKAGE_SPARE_PORTS',
} as const;

/** A block of ports the node listens on, inclusive, with the words that name its variables. */
interface Block {
  name: string;
  lo: number;
  hi: number;
}

const show = (b: Block) => (b.lo === b.hi ? String(b.lo) : `${b.lo}-${b.hi}`);

/** The fixed ports and ranges of a plan (ports chosen by the OS, 0, are left out). */
function blocksOf(p: PortPlan): Block[] {
  const v = PORT_VARIABLES;
  const auth = `${v.authPortMin}-${v.authPortMax}`;
  const pkg = `${v.packagePortMin}-${v.packagePortMax}`;
  const blocks: Block[] = [];
  if (p.tunnelPort > 0) blocks.push({ name: v.tunnelPort, lo: p.tunnelPort, hi: p.tunnelPort });
  if (p.metricsPort) blocks.push({ name: v.metricsPort, lo: p.metricsPort, hi: p.metricsPort });
  if (p.socksBasePort > 0) {
    for (const offset of [...SOCKS_PORT_OFFSETS, LEASE_HTTP_PORT_OFFSET]) {
      const port = p.socksBasePort + offset;
      blocks.push({ name: `${v.socksBasePort} + ${offset}`, lo: port, hi: port });
    }
  }
  blocks.push({ name: auth, lo: p.authPortMin, hi: p.authPortMax });
  blocks.push({
    name: `${auth} + ${v.httpPortOffset}`,
    lo: p.authPortMin + p.httpPortOffset,
    hi: p.authPortMax + p.httpPortOffset,
  });
  blocks.push({ name: pkg, lo: p.packagePortMin, hi: p.packagePortMax });
  blocks.push({
    name: `${pkg} + ${v.httpPortOffset}`,
    lo: p.packagePortMin + p.httpPortOffset,
    hi: p.packagePortMax + p.httpPortOffset,
  });
  for (const [name, port] of Object.entries(p.others ?? {}))
    if (port > 0) blocks.push({ name, lo: port, hi: port });
  return blocks;
}

/**
 * Every problem of a plan, each naming its variables: a range upside down, a twin past 65535, more
 * spares than the package range holds, and any two of its ports or ranges sharing a port.
 */
export function checkPortPlan(p: PortPlan): string[] {
  const v = PORT_VARIABLES;
  const problems: string[] = [];
  const ranges = [
    [v.authPortMin, v.authPortMax, p.authPortMin, p.authPortMax],
    [v.packagePortMin, v.packagePortMax, p.packagePortMin, p.packagePortMax],
  ] as const;
  for (const [minName, maxName, min, max] of ranges) {
    if (min < 1 || min > max) problems.push(`${minName} must be 1 to ${maxName}, got ${min}-${max}`);
    else if (max + p.httpPortOffset > 65535)
      problems.push(
        `${maxName} + ${v.httpPortOffset} must be at most 65535 (the HTTP twin of its last port), got ${max} + ${p.httpPortOffset}`,
      );
  }
  if (p.httpPortOffset < 1) problems.push(`${v.httpPortOffset} must be at least 1, got ${p.httpPortOffset}`);
  if (p.socksBasePort > 0 && p.socksBasePort + LEASE_HTTP_PORT_OFFSET > 65535)
    problems.push(
      `${v.socksBasePort} must be at most ${65535 - LEASE_HTTP_PORT_OFFSET} (its HTTP port is base + ${LEASE_HTTP_PORT_OFFSET}), got ${p.socksBasePort}`,
    );
  const size = p.packagePortMax - p.packagePortMin + 1;
  if (p.packageSparePorts < 0 || (size > 0 && p.packageSparePorts > size))
    problems.push(
      `${v.packageSparePorts} must be 0 to the ${size} ports of ${v.packagePortMin}-${v.packagePortMax}, got ${p.packageSparePorts}`,
    );
  if (problems.length > 0) return problems;
  const blocks = blocksOf(p);
  for (let i = 0; i < blocks.length; i++) {
    for (let j = i + 1; j < blocks.length; j++) {
      const a = blocks[i]!;
      const b = blocks[j]!;
      if (a.lo <= b.hi && b.lo <= a.hi)
        problems.push(`${a.name} (${show(a)}) overlaps ${b.name} (${show(b)})`);
    }
  }
  return problems;
}

/** This machine's ephemeral port range (Linux), or undefined where it cannot be read. */
export function readEphemeralRange(
  file = '/proc/sys/net/ipv4/ip_local_port_range',
): [number, number] | undefined {
  try {
    const [lo, hi] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    return lo && hi ? [lo, hi] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One warning naming the fixed ports and ranges of the plan inside the ephemeral range `[lo, hi]`
 * (an outgoing connection there may hold a port a package or lease needs); null when none is.
 */
export function ephemeralWarning(p: PortPlan, range: [number, number] | undefined): string | null {
  if (!range) return null;
  const [lo, hi] = range;
  const inside = blocksOf(p).filter((b) => b.lo <= hi && lo <= b.hi);
  if (inside.length === 0) return null;
  return `ports inside this machine's ephemeral range ${lo}-${hi} (/proc/sys/net/ipv4/ip_local_port_range), where outgoing connections may hold them: ${inside.map((b) => `${b.name} (${show(b)})`).join(', ')}`;
}
