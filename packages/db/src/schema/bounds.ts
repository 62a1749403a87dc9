import { sql } from 'drizzle-orm';

/**
 * Bound on every money column (cents; either sign for ledger amounts): `MAX_CENTS` of `@pm/money`,
 * $1,000,000,000.00, well inside the exact-integer range the code reads `bigint`s into.
 * A literal because it becomes DDL in the migrations; the server's tests check both agree.
 */
export const MONEY_BOUND_SQL = sql.raw('100000000000');
