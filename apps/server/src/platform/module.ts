/**
 * The feature-module contract. Every folder under `modules/` has a `<feature>.module.ts` that
 * declares, with `defineModule`, the services it builds (from the platform and the services of
 * modules listed before it), its routes and its jobs. `modules/index.ts` lists the modules in build
 * order and `compose.ts` builds them; nothing else wires a feature by hand.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DbHandle } from '@pm/db';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import type { ChangeFeed } from './changes.ts';
import type { FeatureSettings } from './config.ts';
import type { AnyJob, JobQueue } from './jobs.ts';
import type { Logger } from './logger.ts';

/** What every module may use besides the services it names: database, clock, job queue, logs, metrics. */
export interface Platform {
  db: DbHandle;
  /** Milliseconds since the epoch; tests may pass a fixed clock. */
  now(): number;
  jobs: JobQueue;
  log: Logger;
  metrics: Registry;
  /** Feature settings; each module reads its own part. */
  settings: FeatureSettings;
  /** Cache invalidation across processes (NOTIFY after commit): publish in a write, clear on change. */
  changes: Pick<ChangeFeed, 'publish' | 'onChange'>;
}

/** The Fastify instance routes are declared on: zod schemas type params, query, body and responses. */
/** Which listener an app serves: the market API or the Ports API. */
export type ApiSurface = 'market' | 'ports';

export type ApiApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * One feature. `Needs` are services of earlier modules, as narrow as the feature can make them
 * (`{ ledger: Pick<LedgerService, 'move'> }`); `Provides` are the services it adds.
 */
export interface FeatureModule<Needs extends object, Provides extends object> {
  /** The feature folder's name. */
  name: string;
  /** Names of the services in `Needs`, checked when the modules are built (an earlier module must provide each). */
  needs: readonly NoInfer<keyof Needs & string>[];
  /**
   * Builds the module's services; no I/O here. A module with needs annotates both parameters
   * (`(platform: Platform, { ledger }: { ledger: Pick<LedgerService, 'move'> })`): that
   * annotation is where `Needs` is read from.
   */
  services(platform: Platform, needs: Needs): Provides;
  /** Declares the module's routes: each with its schemas, `config.auth` and `config.rateLimit` together. */
  routes?(app: ApiApp, services: NoInfer<Needs & Provides>, platform: Platform): void;
  /**
   * Routes served on the Ports API's own listener (its own base address, rules §7) instead
   * of the market API; same contract as `routes`.
   */
  portsRoutes?(app: ApiApp, services: NoInfer<Needs & Provides>, platform: Platform): void;
  /** The module's background jobs; their handlers get `Needs & Provides`. */
  jobs?: readonly AnyJob<NoInfer<Needs & Provides>>[];
}

/** A module of any shape, as the module list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds modules of different needs; compose.ts checks them by name.
export type AnyModule = FeatureModule<any, object>;

/** Declares a feature module (an identity function that lets TypeScript infer `Needs` and `Provides`). */
export function defineModule<Needs extends object, Provides extends object>(
  module: FeatureModule<Needs, Provides>,
): FeatureModule<Needs, Provides> {
  return module;
}
