import { AppError, PORT_PRICE_KEYS, type TPortPriceRequest, type TPortPriceRow } from '@pm/contracts';
import type { Cents } from '@pm/money';

/** The ports call's error text when no price can be given (rules §8, "Error texts from the ports calls"). */
export const PORT_PRICE_ERROR_TEXT = 'error while getting port price';

/** The port price table by kind and key (`table.gb['7']`: cents per Gb for 7 days). */
export type PortPriceTable = Record<keyof typeof PORT_PRICE_KEYS, Record<string, number>>;

/** Builds the table from its rows; throws VALIDATION_FAILED naming the first missing or unknown row. */
export function toPriceTable(rows: readonly TPortPriceRow[]): PortPriceTable {
  const table = { gb: {}, unlimit: {}, ports: {}, geo: {}, conn: {}, access: {} } as PortPriceTable;
  for (const [i, row] of rows.entries()) {
    const keys: readonly string[] = PORT_PRICE_KEYS[row.kind];
    if (!keys.includes(row.key) || row.key in table[row.kind]) {
      throw new AppError('VALIDATION_FAILED', {
        message: `rows.${i}.key: ${row.kind} takes each of ${keys.join(', ')} once`,
        details: { field: `rows.${i}.key` },
      });
    }
    const isPercent = row.kind === 'geo' || row.kind === 'conn' || row.kind === 'access';
    if (isPercent && (row.value < 1 || row.value > 1000)) {
      throw new AppError('VALIDATION_FAILED', {
        message: `rows.${i}.value: a ${row.kind} percent is 1-1000`,
        details: { field: `rows.${i}.value` },
      });
    }
    table[row.kind][row.key] = row.value;
  }
  for (const kind of Object.keys(PORT_PRICE_KEYS) as (keyof typeof PORT_PRICE_KEYS)[]) {
    for (const key of PORT_PRICE_KEYS[kind]) {
      if (!(key in table[kind])) {
        throw new AppError('VALIDATION_FAILED', {
          message: `rows: ${kind} ${key} is missing`,
          details: { field: 'rows' },
        });
      }
    }
  }
  return table;
}

/** The geo depth a request targets: city beats state beats country. */
export function geoDepth(geo: {
  state?: string | undefined;
  city?: string | undefined;
}): 'country' | 'state' | 'city' {
  if (geo.city) return 'city';
  if (geo.state) return 'state';
  return 'country';
}

/** How many ports a request buys: its count for traffic packages (100 by default), 1 for unlimited. */
export function portCount(req: Pick<TPortPriceRequest, 'traffic' | 'access'>): number {
  return req.traffic.type === 'unlimit' ? 1 : (req.access.port_amount ?? 100);
}

/**
 * A package's price in cents: traffic packages pay cents per Gb for the period times the volume,
 * plus the surcharge for the port count; the unlimited port pays its period's price. The sum is
 * scaled by the geo depth, connection and access percents and rounded half up to a cent.
 * Throws VALIDATION_FAILED for a port count the table does not sell.
 */
export function computePortPrice(
  table: PortPriceTable,
  req: Pick<TPortPriceRequest, 'time_period' | 'traffic' | 'geo' | 'access'>,
): Cents {
  const period = String(req.time_period);
  let base: number;
  if (req.traffic.type === 'unlimit') {
    base = table.unlimit[period] ?? 0;
  } else {
    const count = String(portCount(req));
    const surcharge = table.ports[count];
    if (surcharge === undefined) {
      throw new AppError('VALIDATION_FAILED', {
        message: `access.port_amount: must be one of ${PORT_PRICE_KEYS.ports.join(', ')}`,
        // Rules §8's text of a failed price call, then what to change.
        userMessage: `${PORT_PRICE_ERROR_TEXT}: access.port_amount must be one of ${PORT_PRICE_KEYS.ports.join(', ')}`,
        details: { field: 'access.port_amount' },
      });
    }
    base = (table.gb[period] ?? 0) * (req.traffic.amount ?? 0) + surcharge;
  }
  const percent =
    (table.geo[geoDepth(req.geo)] ?? 100) *
    (table.conn[req.geo.connection_type] ?? 100) *
    (table.access[req.access.type] ?? 100);
  // Integers throughout: base (≤ 1e11 cents) times a percent product (≤ 1e9) stays exact in a bigint.
  const scaled = BigInt(base) * BigInt(percent);
  return Number((scaled + 500_000n) / 1_000_000n) as Cents;
}
