import { AppError, PORT_ROTATION_MIN_MS } from '@pm/contracts';
import { chargeErrors } from '../ledger/ledger.service.ts';
import type { PortsContext } from './ports.context.ts';

const rotateErrors = {
  notFound: () => new AppError('NOT_FOUND', { message: 'no such port/key', userMessage: 'Port not found' }),
  notActive: (packageId: string, status: string) =>
    new AppError('CONFLICT', {
      message: `package ${packageId} is ${status}`,
      userMessage: 'The port is not active',
      details: { errorCode: 'notActive' },
    }),
  tooSoon: (port: number, sinceMs: number) =>
    new AppError('RATE_LIMITED', {
      message: `port ${port} rotated ${sinceMs} ms ago`,
      userMessage: 'The IP can change once every 5 minutes',
      details: { retryAfterSeconds: Math.ceil((PORT_ROTATION_MIN_MS - sinceMs) / 1000) },
    }),
};

/** The rotation link: a port moved to another exit by its package's key, without a token. */
export function createPortRotation(ctx: PortsContext) {
  const { deps, repo } = ctx;
  return {
    /**
     * Moves the port to another exit (the gateway re-chooses at once). An unknown port or key is
     * NOT_FOUND; a package that does not serve CONFLICT `notActive`; a blocked customer's package
     * FORBIDDEN `accountBlocked` (the answer a blocked customer's purchase gets); a second rotation
     * within 5 minutes RATE_LIMITED with `retryAfterSeconds`.
     */
    async rotatePort(port: number, key: string): Promise<{ port: number; rotated: true }> {
      return deps.db.transaction(async (tx) => {
        const found = await repo.lockPortByKey(port, key, tx);
        if (!found) throw rotateErrors.notFound();
        if (found.status !== 'active') throw rotateErrors.notActive(found.packageId, found.status);
        // A block stops the link at once, as it stops the package's ports (read uncached, every time).
        if (await deps.accounts.isBlocked(found.userId, tx)) throw chargeErrors.accountBlocked(found.userId);
        const since = found.rotatedAt ? deps.now() - found.rotatedAt.getTime() : Infinity;
        if (since < PORT_ROTATION_MIN_MS) throw rotateErrors.tooSoon(port, since);
        await repo.rotatePort(found.packageId, port, new Date(deps.now()), tx);
        return { port, rotated: true as const };
      });
    },
  };
}
