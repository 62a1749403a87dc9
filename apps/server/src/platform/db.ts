import type { Db, DbHandle } from '@pm/db';

/** The Drizzle database behind either a `DbHandle` or a bare `Db`. */
export function drizzleOf(db: DbHandle | Db): Db {
  return 'kind' in db && 'query' in db ? db.db : db;
}
