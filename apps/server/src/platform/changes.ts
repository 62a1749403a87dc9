/**
 * Cross-process invalidation of in-process caches: a write publishes a topic with NOTIFY inside
 * its transaction, which PostgreSQL delivers to every listening process only when (and if) the
 * transaction commits; each API process LISTENs on one channel and clears what the topic names.
 */
import type { DbHandle, DbOrTx } from '@pm/db';
import { sql } from 'drizzle-orm';
import type { Logger } from './logger.ts';

/** The channel every API process listens on; the payload is the topic. */
export const CHANGES_CHANNEL = 'server_changes';

/** What changed: the shop's shared pages and counts (a sale), or the price list. */
export type ChangeTopic = 'shop' | 'pricing';

export interface ChangeFeed {
  /** NOTIFYs `topic` in `tx`: every listening process (this one included) hears it after the commit. */
  publish(topic: ChangeTopic, tx: DbOrTx): Promise<void>;
  /** Runs `clear` whenever `topic` is published by any process, and after the listener (re)connects. */
  onChange(topic: ChangeTopic, clear: () => void): void;
  /** Starts listening (idempotent); the API role calls it, scripts that only compose services do not. */
  start(): Promise<void>;
  /** Stops listening. */
  stop(): Promise<void>;
}

export function createChangeFeed(db: Pick<DbHandle, 'listen'>, log: Logger): ChangeFeed {
  const handlers = new Map<ChangeTopic, (() => void)[]>();
  let listening: Promise<() => Promise<void>> | undefined;
  const fire = (payload: string) => {
    // An empty payload: the connection was (re)made and something may have been missed: clear all.
    for (const [topic, clears] of handlers) {
      if (payload && payload !== topic) continue;
      for (const clear of clears) {
        try {
          clear();
        } catch (err) {
          log.error({ err, topic }, 'cache invalidation failed');
        }
      }
    }
  };
  return {
    async publish(topic, tx) {
      await tx.execute(sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${topic})`);
    },
    onChange(topic, clear) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), clear]);
    },
    async start() {
      listening ??= db.listen(CHANGES_CHANNEL, fire);
      // A failed start is tried again by the next call.
      await listening.catch((e: unknown) => {
        listening = undefined;
        throw e;
      });
    },
    async stop() {
      const l = listening;
      listening = undefined;
      if (l) await (await l.catch(() => async () => {}))();
    },
  };
}
