/**
 * The composition root: builds the platform (database, clock, job queue, logs, metrics), then each
 * feature module's services in the order of `MODULES`, then its routes (HTTP role) and its jobs
 * (worker role). Nothing else wires a feature.
 */
import type { DbHandle } from '@pm/db';
import { Registry } from 'prom-client';
import { MODULES, type Services } from './modules/index.ts';
import { type ChangeFeed, createChangeFeed } from './platform/changes.ts';
import type { FeatureSettings } from './platform/config.ts';
import {
  createJobRuntime,
  intervalOf,
  type JobContext,
  type JobRuntime,
  type RunnableJob,
} from './platform/jobs.ts';
import type { Logger } from './platform/logger.ts';
import type { AnyModule, ApiApp, ApiSurface, Platform } from './platform/module.ts';

/** The built server: the platform, every module's services, and the job runtime. */
export interface Composition {
  platform: Platform;
  services: Services;
  modules: readonly AnyModule[];
  jobs: JobRuntime;
  /** Cross-process cache invalidation; `start()` by the API role. */
  changes: ChangeFeed;
  /** Stops the job runtime and the change listener. */
  close(): Promise<void>;
}

/** The platform's parts and the process's role. */
export interface ComposeOptions {
  db: DbHandle;
  log: Logger;
  /** This process runs workers (and cron schedules); otherwise it only sends jobs. */
  isWorker?: boolean;
  /** Clock; tests may pass a fixed one. */
  now?: () => number;
  /** How often an idle worker looks for jobs; default 2000 ms. */
  jobPollingIntervalMs?: number;
  /** Modules after the product's own (tests add throwaway routes this way). */
  extraModules?: readonly AnyModule[];
  /** Feature settings (payments, referral link). */
  settings?: FeatureSettings | undefined;
}

/** Builds the services of every module in order; throws when a module needs a service no earlier module provides. */
export function compose(options: ComposeOptions): Composition {
  const metrics = new Registry();
  const jobs = createJobRuntime({
    db: options.db,
    log: options.log,
    isWorker: options.isWorker ?? false,
    pollingIntervalMs: options.jobPollingIntervalMs,
    metrics,
  });
  const changes = createChangeFeed(options.db, options.log);
  const platform: Platform = {
    db: options.db,
    now: options.now ?? Date.now,
    jobs,
    log: options.log,
    metrics,
    settings: options.settings ?? {},
    changes,
  };
  const modules: readonly AnyModule[] = [...MODULES, ...(options.extraModules ?? [])];
  const built: Record<string, unknown> = {};
  for (const module of modules) {
    const needs: Record<string, unknown> = {};
    for (const name of module.needs) {
      if (!(name in built)) {
        throw new Error(`module ${module.name} needs ${name}, which no module before it provides`);
      }
      needs[name] = built[name];
    }
    const provided = module.services(platform, needs);
    for (const name of Object.keys(provided)) {
      if (name in built) throw new Error(`module ${module.name} provides ${name} a second time`);
    }
    Object.assign(built, provided);
  }
  return {
    platform,
    services: built as Services,
    modules,
    jobs,
    changes,
    async close() {
      await jobs.stop();
      await changes.stop();
    },
  };
}

/** Declares every module's routes of one surface (the market API, or the Ports API's listener) on the app. */
export function registerModuleRoutes(
  app: ApiApp,
  composition: Composition,
  surface: ApiSurface = 'market',
): void {
  for (const module of composition.modules) {
    const routes = surface === 'ports' ? module.portsRoutes : module.routes;
    routes?.(app, composition.services, composition.platform);
  }
}

/** Every module's jobs with their handlers bound to the services. */
export function bindModuleJobs(composition: Composition): RunnableJob[] {
  return composition.modules.flatMap((module) =>
    (module.jobs ?? []).map((definition) => ({
      definition,
      run: (payload: unknown, context: JobContext) =>
        definition.handler(payload, composition.services, context),
      everySeconds: intervalOf(definition, composition.platform.settings),
    })),
  );
}
