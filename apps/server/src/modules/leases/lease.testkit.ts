/** Test factories for gateway nodes and agents (test helpers only, not used by the app). */
import { randomBytes } from 'node:crypto';
import { agents, type Db, gatewayNodes } from '@pm/db';

export async function buildNode(
  db: Db,
  overrides: Partial<typeof gatewayNodes.$inferInsert> = {},
): Promise<typeof gatewayNodes.$inferSelect> {
  const rows = await db
    .insert(gatewayNodes)
    .values({
      id: `node-${randomBytes(3).toString('hex')}`,
      publicHost: 'gw.example.test',
      publicIp: '127.0.0.1',
      socksBasePort: 10000,
      authPortMin: 20000,
      authPortMax: 20009,
      ...overrides,
    })
    .returning();
  return rows[0]!;
}

export async function buildAgent(
  db: Db,
  overrides: Partial<typeof agents.$inferInsert> = {},
): Promise<typeof agents.$inferSelect> {
  const rows = await db
    .insert(agents)
    .values({
      id: `ag-${randomBytes(4).toString('hex')}`,
      keyHash: randomBytes(32).toString('hex'),
      ip: '192.0.2.10',
      cc: 'US',
      reg: 'CA',
      city: 'San Jose',
      zip: '95131',
      isp: 'Example ISP',
      priceExcC: 500,
      priceShrC: 200,
      online: true,
      ...overrides,
    })
    .returning();
  return rows[0]!;
}
