import { defineModule } from '../../platform/module.ts';
import { sweepRateLimitsJob } from './health.jobs.ts';
import { registerDocumentRoute, registerHealthRoutes } from './health.routes.ts';
import { createHealthService } from './health.service.ts';

/**
 * Operations: `/healthz`, `/readyz`, `/metrics`, `/openapi.json` (on the Ports API's listener too,
 * its own document), and the sweep of ended rate-limit windows.
 */
export const healthModule = defineModule({
  name: 'health',
  needs: [],
  services: (platform) => ({ health: createHealthService({ db: platform.db, now: platform.now }) }),
  routes: registerHealthRoutes,
  portsRoutes: (app) => registerDocumentRoute(app),
  jobs: [sweepRateLimitsJob],
});
