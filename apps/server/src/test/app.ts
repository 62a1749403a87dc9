import { STAFF_PERMISSIONS } from '@pm/contracts';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import type { AnyModule } from '../platform/module.ts';
import { startTestIssuer, type TestIssuer } from './issuer.ts';

export const TEST_AUDIENCE = 'https://api.market.test';
export const TEST_ORIGIN = 'http://127.0.0.1:5173';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  issuer: TestIssuer;
  /** `{ authorization: 'Bearer …' }` for a customer (or with the given permissions). */
  auth(
    userId: string,
    permissions?: string[],
    claims?: Record<string, unknown>,
  ): Promise<Record<string, string>>;
  /** Same, with both staff permissions. */
  staffAuth(userId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * A fresh database, a loopback issuer and the API built on them (for `app.inject`). `modules` are
 * added after the product's own (throwaway routes for a test).
 */
export async function createTestApp(
  label: string,
  o: { blockCacheMs?: number; modules?: AnyModule[] } = {},
): Promise<TestApp> {
  const db = await createTestDatabase(label);
  const issuer = await startTestIssuer(TEST_AUDIENCE);
  const app = await buildApp({
    db,
    oidc: {
      issuer: issuer.issuer,
      audience: TEST_AUDIENCE,
      algorithms: ['ES256'],
      permissionsClaim: 'permissions',
    },
    corsOrigins: [TEST_ORIGIN],
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    blockCacheMs: o.blockCacheMs,
    extraModules: o.modules,
  });
  await app.ready();
  const auth = async (userId: string, permissions: string[] = [], claims: Record<string, unknown> = {}) => ({
    authorization: `Bearer ${await issuer.sign(userId, { permissions, email: `${userId}@example.test`, ...claims })}`,
  });
  return {
    app,
    db,
    issuer,
    auth,
    staffAuth: (userId) => auth(userId, [...STAFF_PERMISSIONS]),
    async close() {
      await app.close();
      await issuer.close();
      await db.drop();
    },
  };
}
