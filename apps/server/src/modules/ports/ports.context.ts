import {
  AppError,
  PORT_WHITELIST_MAX,
  PORT_WHITELIST_MAX_UNLIMITED,
  type TPortPackage,
  type TPortPriceRow,
} from '@pm/contracts';
import type { Db, Tx } from '@pm/db';
import type { AccountService } from '../accounts/accounts.service.ts';
import type { LedgerService } from '../ledger/ledger.service.ts';
import type { SaleKeyService } from '../sales/sales.service.ts';
import { toPackage } from './ports.mapper.ts';
import { type PortPriceTable, toPriceTable } from './ports.pricing.ts';
import { createPortsRepository, type PackageRow } from './ports.repository.ts';

/** Who calls: the signed-in user (staff may read anyone's packages). */
export interface PortsCaller {
  userId: string;
  email: string;
  isStaff: boolean;
}

/** How a refund waits for the package's node to write its exact counters (`ports.refund.ts`). */
export interface FlushSettings {
  /** The longest wait for the node's stamp before answering 503 with Retry-After. */
  waitMs: number;
  /** How often the stamp is looked for. */
  pollMs: number;
  /** A node without a heartbeat for this long is gone: its counters are as exact as they get. */
  nodeSilentMs: number;
}

export const DEFAULT_FLUSH: FlushSettings = { waitMs: 5000, pollMs: 50, nodeSilentMs: 30_000 };

/** What the ports use cases are built from. */
export interface PortsServiceDeps {
  db: Db;
  ledger: Pick<LedgerService, 'charge' | 'move'>;
  /** The sale kernel: Idempotency-Key records of purchase, reactivation and refund, and turns. */
  saleKeys: Pick<SaleKeyService, 'claim' | 'findPrior' | 'record' | 'inTurn'>;
  /** Whether a customer is blocked (the rotation link refuses a blocked customer's package). */
  accounts: Pick<AccountService, 'isBlocked'>;
  now: () => number;
  flush?: Partial<FlushSettings> | undefined;
}

/** The refusals several use cases share. */
export const portsErrors = {
  notFound: () => new AppError('NOT_FOUND', { message: 'no such package', userMessage: 'Package not found' }),
  priceChanged: (priceC: number) =>
    new AppError('CONFLICT', {
      message: `port price is ${priceC}`,
      userMessage: 'Price Changed',
      details: { errorCode: 'priceChanged', price: priceC },
    }),
  whitelistTooLong: (max: number) =>
    new AppError('VALIDATION_FAILED', {
      message: `whitelist_ips: at most ${max} addresses`,
      details: { field: 'whitelist_ips' },
    }),
};

/** Refuses a whitelist longer than the package may hold (20 addresses, 1 for the unlimited port). */
export function checkWhitelist(ips: readonly string[], isUnlimited: boolean): void {
  const max = isUnlimited ? PORT_WHITELIST_MAX_UNLIMITED : PORT_WHITELIST_MAX;
  if (ips.length > max) throw portsErrors.whitelistTooLong(max);
}

/** The repository and helpers every ports use case shares (one per service). */
export function createPortsContext(deps: PortsServiceDeps) {
  const repo = createPortsRepository(deps.db);

  /** A stored package as the Ports API answers it, with its node, ports and exits. */
  async function readPackage(p: PackageRow): Promise<TPortPackage> {
    const [node, ports, exits] = await Promise.all([
      repo.findNode(p.nodeId),
      repo.findPorts([p.id]),
      repo.findExits([p.id]),
    ]);
    return toPackage(p, node, ports.get(p.id) ?? [], deps.now(), exits.get(p.id));
  }

  return {
    deps,
    repo,
    readPackage,

    /** The operator's price table now (in `tx`, when given). */
    async priceTable(tx?: Tx): Promise<PortPriceTable> {
      const rows = await repo.findPriceRows(tx);
      return toPriceTable(
        rows.map((r) => ({ kind: r.kind as TPortPriceRow['kind'], key: r.key, value: r.value })),
      );
    },

    /** The package by id as the API answers it (the package a replayed key answered). */
    async readPackageById(id: string): Promise<TPortPackage> {
      const p = await repo.findPackage(id);
      if (!p) throw new AppError('INTERNAL', { message: `package ${id} of a sale record is gone` });
      return readPackage(p);
    },

    /** Locks the caller's own package or throws NOT_FOUND (another's package is not told apart). */
    async lockOwn(caller: PortsCaller, id: string, tx: Tx): Promise<PackageRow> {
      const p = await repo.lockPackage(id, tx);
      if (!p || p.userId !== caller.userId) throw portsErrors.notFound();
      return p;
    },
  };
}

/** The shared part of the ports use cases. */
export type PortsContext = ReturnType<typeof createPortsContext>;
