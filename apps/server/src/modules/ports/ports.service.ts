import { createHash } from 'node:crypto';
import {
  AppError,
  BYTES_PER_GB,
  PORT_ROTATION_MIN_MS,
  PORT_WHITELIST_MAX,
  PORT_WHITELIST_MAX_UNLIMITED,
  type TNewPortRequest,
  type TPortPackage,
  type TPortPriceRequest,
  type TPortPriceRow,
  type TPortTrafficResponse,
} from '@pm/contracts';
import type { Db } from '@pm/db';
import type { Cents } from '@pm/money';
import type { LedgerService } from '../ledger/ledger.service.ts';
import { DAY_MS, isRefundable, randomText, toPackage } from './ports.mapper.ts';
import { computePortPrice, portCount, toPriceTable } from './ports.pricing.ts';
import { createPortsRepository, type NodeRow, type PackageRow } from './ports.repository.ts';

/** Who calls: the signed-in user (staff may read anyone's packages). */
export interface PortsCaller {
  userId: string;
  email: string;
  isStaff: boolean;
}

export interface PortsServiceDeps {
  db: Db;
  ledger: Pick<LedgerService, 'charge' | 'move'>;
  now: () => number;
}

const portsError = {
  notFound: () => new AppError('NOT_FOUND', { message: 'no such package', userMessage: 'Package not found' }),
  priceChanged: (priceC: number) =>
    new AppError('CONFLICT', {
      message: `port price is ${priceC}`,
      userMessage: 'Price Changed',
      details: { errorCode: 'priceChanged', price: priceC },
    }),
};

/** Port packages: pricing, sale, access, refund, reactivation and the rotation link. */
export function createPortsService(deps: PortsServiceDeps) {
  const repo = createPortsRepository(deps.db);

  async function priceTable() {
    const rows = await repo.findPriceRows();
    return toPriceTable(
      rows.map((r) => ({ kind: r.kind as TPortPriceRow['kind'], key: r.key, value: r.value })),
    );
  }

  async function readPackage(p: PackageRow): Promise<TPortPackage> {
    const [node, ports, exits] = await Promise.all([
      repo.findNode(p.nodeId),
      repo.findPorts([p.id]),
      repo.findExits([p.id]),
    ]);
    return toPackage(p, node, ports.get(p.id) ?? [], deps.now(), exits.get(p.id));
  }

  /** Locks the caller's own package or throws NOT_FOUND (another's package is not told apart). */
  async function lockOwn(
    caller: PortsCaller,
    id: string,
    tx: Parameters<Parameters<Db['transaction']>[0]>[0],
  ) {
    const p = await repo.lockPackage(id, tx);
    if (!p || p.userId !== caller.userId) throw portsError.notFound();
    return p;
  }

  function checkWhitelist(ips: readonly string[], isUnlimited: boolean): void {
    const max = isUnlimited ? PORT_WHITELIST_MAX_UNLIMITED : PORT_WHITELIST_MAX;
    if (ips.length > max) {
      throw new AppError('VALIDATION_FAILED', {
        message: `whitelist_ips: at most ${max} addresses`,
        details: { field: 'whitelist_ips' },
      });
    }
  }

  async function getPricing() {
    const rows = await repo.findPriceRows();
    const latest = rows.reduce<(typeof rows)[number] | undefined>(
      (a, r) => (!a || r.updatedAt > a.updatedAt ? r : a),
      undefined,
    );
    return {
      rows: rows.map((r) => ({ kind: r.kind as TPortPriceRow['kind'], key: r.key, value: r.value })),
      updatedAt: latest?.updatedBy ? latest.updatedAt.toISOString() : null,
      updatedBy: latest?.updatedBy ?? null,
    };
  }

  return {
    /** What a package would cost now, from the operator's price table. */
    async price(req: TPortPriceRequest): Promise<{ price: Cents }> {
      return { price: computePortPrice(await priceTable(), req) };
    },

    /**
     * Buys a package in one transaction: the price must equal the table's (else CONFLICT
     * `priceChanged` with the price), the node is the one with the most matching exits (none:
     * CONFLICT `noExits`), ports come from that node's range, the charge goes through
     * ledger.charge (402 `notEnoughFunds`, 403 `accountBlocked`) keyed by the package.
     */
    async createPackage(caller: PortsCaller, req: TNewPortRequest, idemKey?: string): Promise<TPortPackage> {
      if (req.user_id !== caller.userId) {
        throw new AppError('FORBIDDEN', { message: 'user_id is not the caller', userMessage: 'Forbidden' });
      }
      const isUnlimited = req.traffic.type === 'unlimit';
      const whitelist = req.access.whitelist_ips ?? [];
      checkWhitelist(whitelist, isUnlimited);
      if (req.access.type === 'whitelist' && whitelist.length === 0) {
        throw new AppError('VALIDATION_FAILED', {
          message: 'access.whitelist_ips: at least one address for whitelist access',
          details: { field: 'access.whitelist_ips' },
        });
      }
      const priceC = computePortPrice(await priceTable(), req);
      if (priceC !== req.price) throw portsError.priceChanged(priceC);
      const count = portCount(req);
      const filter = {
        country: req.geo.country,
        state: req.geo.state ?? '',
        city: req.geo.city ?? '',
        connectionType: req.geo.connection_type,
      };
      // With an Idempotency-Key the package id comes from (caller, key): a retry or a parallel twin
      // finds the package (or the charge's key) and answers it, charged once.
      const id = idemKey
        ? `pp-${createHash('sha256').update(`${caller.userId}\n${idemKey}`).digest('hex').slice(0, 16)}`
        : `pp-${randomText(12)}`;
      const replay = async (): Promise<TPortPackage | undefined> => {
        const existing = idemKey ? await repo.findPackage(id) : undefined;
        if (!existing) return undefined;
        const same =
          existing.periodDays === req.time_period &&
          existing.trafficType === req.traffic.type &&
          existing.country === req.geo.country &&
          existing.portAmount === count;
        if (!same) {
          throw new AppError('CONFLICT', {
            message: `idempotency key reused for another package than ${id}`,
            userMessage: 'Idempotency key was already used for a different request',
            details: { errorCode: 'idempotencyKeyReused' },
          });
        }
        return readPackage(existing);
      };
      const earlier = await replay();
      if (earlier) return earlier;
      const created = await deps.db.transaction(async (tx) => {
        const best = await repo.findBestNode(filter, tx);
        if (!best) {
          throw new AppError('CONFLICT', {
            message: `no exits for ${JSON.stringify(filter)}`,
            userMessage: 'No proxies are online for this location and connection type',
            details: { errorCode: 'noExits' },
          });
        }
        const ports = await repo.allocatePorts(best.node.id, count, tx);
        if (ports.length < count) {
          throw new AppError('UNAVAILABLE', {
            message: `node ${best.node.id} has ${ports.length} free package ports`,
            userMessage: 'No free ports right now, try again later',
          });
        }
        const nowMs = deps.now();
        const charged = await deps.ledger.charge(
          {
            userId: caller.userId,
            amountC: priceC,
            type: 'port',
            memo: `Port package ${id}: ${isUnlimited ? 'unlimited' : `${req.traffic.amount} Gb`}, ${count} port${count === 1 ? '' : 's'}, ${req.time_period} day${req.time_period === 1 ? '' : 's'}`,
            idemKey: `port:${id}:1`,
          },
          tx,
        );
        // The twin committed first (its charge's key is there): answer its package, charge nothing.
        if (charged.replayed) return undefined;
        const row = await repo.insertPackage(
          {
            id,
            userId: caller.userId,
            userEmail: req.user_email ?? caller.email,
            priceC,
            periodDays: req.time_period,
            trafficType: req.traffic.type,
            trafficGb: isUnlimited ? 0 : (req.traffic.amount ?? 0),
            region: req.geo.region ?? '',
            country: filter.country,
            state: filter.state,
            city: filter.city,
            connectionType: filter.connectionType,
            switchType: req.switch.type,
            switchTimer: req.switch.type === 'timer' ? (req.switch.timer ?? 5) : null,
            apiKey: randomText(24),
            accessType: req.access.type,
            authLogin: `u${randomText(11)}`,
            authPassword: randomText(16),
            whitelistIps: whitelist,
            nodeId: best.node.id,
            portAmount: count,
            status: 'active',
            dateStart: new Date(nowMs),
            dateFinish: new Date(nowMs + req.time_period * DAY_MS),
          },
          ports,
          tx,
        );
        return toPackage(row, best.node, ports, nowMs);
      });
      return created ?? (await replay())!;
    },

    /** The caller's packages, newest first (staff may read anyone's). */
    async listPackages(caller: PortsCaller, userId: string): Promise<{ packages: TPortPackage[] }> {
      if (userId !== caller.userId && !caller.isStaff) {
        throw new AppError('FORBIDDEN', { message: 'not the caller', userMessage: 'Forbidden' });
      }
      const rows = await repo.findPackagesOfUser(userId);
      const ports = await repo.findPorts(rows.map((r) => r.id));
      const exits = await repo.findExits(rows.map((r) => r.id));
      const nodes = new Map<string, NodeRow | undefined>();
      for (const r of rows) if (!nodes.has(r.nodeId)) nodes.set(r.nodeId, await repo.findNode(r.nodeId));
      const nowMs = deps.now();
      return {
        packages: rows.map((r) =>
          toPackage(r, nodes.get(r.nodeId), ports.get(r.id) ?? [], nowMs, exits.get(r.id)),
        ),
      };
    },

    /** Sets the whitelist and switches the package to whitelist access (not empty; 20 IPs, 1 for unlimited). */
    async updateWhitelist(caller: PortsCaller, packageId: string, ips: string[]): Promise<TPortPackage> {
      if (ips.length === 0) {
        throw new AppError('VALIDATION_FAILED', {
          message: 'whitelist_ips: at least one address',
          details: { field: 'whitelist_ips' },
        });
      }
      const row = await deps.db.transaction(async (tx) => {
        const p = await lockOwn(caller, packageId, tx);
        if (p.status === 'refunded') throw portsError.notFound();
        checkWhitelist(ips, p.trafficType === 'unlimit');
        return repo.updatePackage(p.id, { accessType: 'whitelist', whitelistIps: [...new Set(ips)] }, tx);
      });
      return readPackage(row);
    },

    /** Switches the package to login and password access (the generated pair; the whitelist is kept). */
    async switchToAuth(caller: PortsCaller, packageId: string): Promise<TPortPackage> {
      const row = await deps.db.transaction(async (tx) => {
        const p = await lockOwn(caller, packageId, tx);
        if (p.status === 'refunded') throw portsError.notFound();
        return repo.updatePackage(p.id, { accessType: 'auth' }, tx);
      });
      return readPackage(row);
    },

    /**
     * Refunds the last charge when the rule holds (else CONFLICT `notRefundable`, 'error while
     * refund port'): the package ends, its ports are freed, the credit is keyed by its generation.
     */
    async refundPackage(caller: PortsCaller, packageId: string): Promise<TPortPackage> {
      const row = await deps.db.transaction(async (tx) => {
        const p = await lockOwn(caller, packageId, tx);
        if (!isRefundable(p, deps.now())) {
          throw new AppError('CONFLICT', {
            message: `package ${p.id} is ${p.status}, not refundable`,
            userMessage: 'error while refund port',
            details: { errorCode: 'notRefundable' },
          });
        }
        if (p.priceC > 0) {
          await deps.ledger.move(
            {
              userId: p.userId,
              amountC: p.priceC,
              type: 'refund',
              memo: `Refund of port package ${p.id}`,
              idemKey: `port-refund:${p.id}:${p.generation}`,
            },
            tx,
          );
        }
        await repo.deletePorts(p.id, tx);
        return repo.updatePackage(p.id, { status: 'refunded', refundedAt: new Date(deps.now()) }, tx);
      });
      return readPackage(row);
    },

    /**
     * Reactivates a suspended package: charges its price again (402 when the balance does not cover
     * it), starts a new period with fresh counters. Anything but `suspend` is CONFLICT `notSuspended`.
     */
    async reactivatePackage(caller: PortsCaller, packageId: string): Promise<TPortPackage> {
      const row = await deps.db.transaction(async (tx) => {
        const p = await lockOwn(caller, packageId, tx);
        if (p.status !== 'suspend') {
          throw new AppError('CONFLICT', {
            message: `package ${p.id} is ${p.status}`,
            userMessage: 'error while reactivated port',
            details: { errorCode: 'notSuspended' },
          });
        }
        const generation = p.generation + 1;
        await deps.ledger.charge(
          {
            userId: p.userId,
            amountC: p.priceC,
            type: 'port',
            memo: `Reactivation of port package ${p.id}`,
            idemKey: `port:${p.id}:${generation}`,
          },
          tx,
        );
        const nowMs = deps.now();
        return repo.updatePackage(
          p.id,
          {
            status: 'active',
            suspendReason: null,
            generation,
            dateStart: new Date(nowMs),
            dateFinish: new Date(nowMs + p.periodDays * DAY_MS),
            upload: 0,
            download: 0,
            requests: 0,
            errors: 0,
          },
          tx,
        );
      });
      return readPackage(row);
    },

    /**
     * The rotation link: moves the port to another exit (the gateway re-chooses at once). An
     * unknown port or key is NOT_FOUND; a suspended package CONFLICT; a second rotation within
     * 5 minutes RATE_LIMITED with `retryAfterSeconds`.
     */
    async rotatePort(port: number, key: string): Promise<{ port: number; rotated: true }> {
      return deps.db.transaction(async (tx) => {
        const found = await repo.lockPortByKey(port, key, tx);
        if (!found)
          throw new AppError('NOT_FOUND', { message: 'no such port/key', userMessage: 'Port not found' });
        if (found.status !== 'active') {
          throw new AppError('CONFLICT', {
            message: `package ${found.packageId} is ${found.status}`,
            userMessage: 'The port is not active',
            details: { errorCode: 'notActive' },
          });
        }
        const since = found.rotatedAt ? deps.now() - found.rotatedAt.getTime() : Infinity;
        if (since < PORT_ROTATION_MIN_MS) {
          throw new AppError('RATE_LIMITED', {
            message: `port ${port} rotated ${since} ms ago`,
            userMessage: 'The IP can change once every 5 minutes',
            details: { retryAfterSeconds: Math.ceil((PORT_ROTATION_MIN_MS - since) / 1000) },
          });
        }
        await repo.rotatePort(found.packageId, port, new Date(deps.now()), tx);
        return { port, rotated: true as const };
      });
    },

    /** The caller's package's traffic per UTC hour (another's is NOT_FOUND). */
    async getTraffic(caller: PortsCaller, packageId: string): Promise<TPortTrafficResponse> {
      const p = await repo.findPackage(packageId);
      if (!p || (p.userId !== caller.userId && !caller.isStaff)) throw portsError.notFound();
      const rows = await repo.findTrafficHours(p.id);
      return {
        packageID: p.id,
        hours: rows.map((r) => ({
          hour: r.hour.toISOString(),
          reqs: r.reqs,
          fails: r.fails,
          inBytes: r.inBytes,
          outBytes: r.outBytes,
        })),
      };
    },

    /** Suspends packages past their date or volume (the job's backstop to the gateway); returns how many. */
    async suspendDue(): Promise<number> {
      return repo.suspendDue();
    },

    /** Countries with exits now. */
    async listCountries(): Promise<{ countries: { code: string; name: string; count: number }[] }> {
      const names = new Intl.DisplayNames(['en'], { type: 'region' });
      const rows = await repo.countExitsByCountry();
      return {
        countries: rows
          .filter((r) => /^[A-Z]{2}$/.test(r.name))
          .map((r) => ({ code: r.name, name: names.of(r.name) ?? r.name, count: r.count })),
      };
    },

    async listStates(country: string): Promise<{ states: { name: string; count: number }[] }> {
      return { states: await repo.countExitsBy('reg', { country: country.toUpperCase(), state: '' }) };
    },

    async listCities(country: string, state: string): Promise<{ cities: { name: string; count: number }[] }> {
      return { cities: await repo.countExitsBy('city', { country: country.toUpperCase(), state }) };
    },

    /** The port price table. */
    getPricing,

    /** Replaces the port price table (every kind and key once; percents 1-1000). */
    async replacePricing(rows: TPortPriceRow[], staffId: string) {
      toPriceTable(rows);
      await deps.db.transaction((tx) => repo.replacePriceRows(rows, staffId, tx));
      return getPricing();
    },
  };
}

/** The ports service's functions. */
export type PortsService = ReturnType<typeof createPortsService>;

/** Bytes of a package's volume (for the gateway's and the job's limit). */
export const volumeBytes = (gb: number) => gb * BYTES_PER_GB;
