import { defineModule } from '../../platform/module.ts';
import { registerHealthRoutes } from './health.routes.ts';
import { createHealthService } from './health.service.ts';

/** Operations: `/healthz`, `/readyz`, `/metrics`, `/openapi.json`. */
export const healthModule = defineModule({
  name: 'health',
  needs: [],
  services: (platform) => ({ health: createHealthService({ db: platform.db }) }),
  routes: registerHealthRoutes,
});
