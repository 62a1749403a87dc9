/**
 * Cross-process invalidation of in-process caches: a write publishes a topic with NOTIFY inside
 * its transaction, which PostgreSQL delivers to every listening process only when (and if) the
 * transaction commits; each API process LISTENs on one channel and clears what the topic names.
 */
import type { DbHandle, DbOrTx } from '@pm/db';
import { sql } from 'drizzle-orm';
import type { Logger } from './logger.ts';

/** The channel every API process listens on; the payload is the topic, or `topic:key`. */
export const CHANGES_CHANNEL = 'server_changes';

/**
 * What changed: the shop's shared pages and counts (a sale), the price list, or one agent as
 * `GET /agents/{id}` shows it (key: its id; a check's result, the exit a probe found).
 */
export type ChangeTopic = 'shop' | 'pricing' | 'agent';

export interface ChangeFeed {
  /**
   * Clears this process's caches of `topic` (and `key`) at once, and NOTIFYs it in `tx`: every
   * listening process (this one again) hears it after the commit. An early clear is never wrong:
   * what a reader reloads before the commit is cleared again by the notification.
   */
  publish(topic: ChangeTopic, tx: DbOrTx, key?: string): Promise<void>;
  /**
   * Runs `clear` whenever `topic` is published by any process (with its key, if any), and after the
   * listener (re)connects (without: something may have been missed, clear all).
   */
  onChange(topic: ChangeTopic, clear: (key?: string) => void): void;
  /** Starts listening (idempotent); the API role calls it, scripts that only compose services do not. */
  start(): Promise<void>;
  /** Stops listening. */
  stop(): Promise<void>;
}

export function createChangeFeed(db: Pick<DbHandle, 'listen'>, log: Logger): ChangeFeed {
  const handlers = new Map<ChangeTopic, ((key?: string) => void)[]>();
  let listening: Promise<() => Promise<void>> | undefined;
  const fire = (payload: string) => {
    // An empty payload: the connection was (re)made and something may have been missed: clear all.
    const at = payload.indexOf(':');
    const named = at < 0 ? payload : payload.slice(0, at);
    const key = at < 0 ? undefined : payload.slice(at + 1);
    for (const [topic, clears] of handlers) {
      if (named && named !== topic) continue;
      for (const clear of clears) {
        try {
          clear(key);
        } catch (err) {
          log.error({ err, topic }, 'cache invalidation failed');
        }
      }
    }
  };
  return {
    async publish(topic, tx, key) {
      const payload = key === undefined ? topic : `${topic}:${key}`;
      fire(payload);
      await tx.execute(sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${payload})`);
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
