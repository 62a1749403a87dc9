import { createPortAccess } from './ports.access.ts';
import { createPortsContext, type PortsServiceDeps } from './ports.context.ts';
import { createPortPriceTable } from './ports.price-table.ts';
import { createPortPurchase } from './ports.purchase.ts';
import { createPortReactivation } from './ports.reactivate.ts';
import { createPortReads } from './ports.read.ts';
import { createPortRefund } from './ports.refund.ts';
import { createPortRotation } from './ports.rotate.ts';

export type { PortsCaller, PortsServiceDeps } from './ports.context.ts';

/**
 * Port packages, one use case per file: pricing and purchase (`ports.purchase.ts`), reactivation
 * (`ports.reactivate.ts`) and refund (`ports.refund.ts`) through the sale kernel, access
 * (`ports.access.ts`), the rotation link (`ports.rotate.ts`), reading (`ports.read.ts`), the staff
 * price table (`ports.price-table.ts`) and the suspension backstop below.
 */
export function createPortsService(deps: PortsServiceDeps) {
  const ctx = createPortsContext(deps);
  return {
    ...createPortPurchase(ctx),
    ...createPortReactivation(ctx),
    ...createPortRefund(ctx),
    ...createPortAccess(ctx),
    ...createPortRotation(ctx),
    ...createPortReads(ctx),
    ...createPortPriceTable(ctx),

    /**
     * Suspends active packages past their date or at their volume, by the service's clock (the
     * job's backstop to the gateway); returns how many.
     */
    async suspendDue(): Promise<number> {
      return ctx.repo.suspendDue(new Date(deps.now()));
    },
  };
}

/** The ports service's functions. */
export type PortsService = ReturnType<typeof createPortsService>;
