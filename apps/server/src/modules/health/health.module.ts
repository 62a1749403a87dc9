import { defineModule } from '../../platform/module.ts';
import { sweepRateLimitsJob } from './health.jobs.ts';
import { registerHealthRoutes } from './health.routes.ts';
import { createHealthService } from './health.service.ts';

/** Operations: `/healthz`, `/readyz`, `/metrics`, `/openapi.json`, and the sweep of ended rate-limit windows. */
export const healthModule = defineModule({
  name: 'health',
  needs: [],
  services: (platform) => ({ health: createHealthService({ db: platform.db, now: platform.now }) }),
  routes: registerHealthRoutes,
  jobs: [sweepRateLimitsJob],
});
