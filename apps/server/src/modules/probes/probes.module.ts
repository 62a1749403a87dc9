import { defineModule } from '../../platform/module.ts';
import { createProbeService } from './probes.service.ts';

/** Probes through the gateway node that holds an agent (for purchases), over PostgreSQL. No routes. */
export const probesModule = defineModule({
  name: 'probes',
  needs: [],
  services: (platform) => ({
    probes: createProbeService({
      db: platform.db.db,
      timeoutMs: platform.settings.purchaseProbeTimeoutMs,
    }),
  }),
});
