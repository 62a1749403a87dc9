import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  BYTES_PER_GB,
  exitMatches,
  isLeaseActive,
  isOverVolume,
  isPackageActive,
  packageVolumeBytes,
  placeKey,
  portRefundAllowanceBytes,
} from '@pm/contracts';
import fc from 'fast-check';
import { createTestDatabase, type TestDatabase } from './testing.ts';

// The SQL rules of migration 0019 and their TypeScript twins (packages/contracts/src/rules.ts) must
// give the same answer for the same row: random rows, both forms, one comparison.

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase('rules');
});
after(() => db.drop());

const one = async <T>(sql: string, params: unknown[]): Promise<T> =>
  (await db.query<{ v: T }>(`SELECT ${sql} AS v`, params))[0]!.v;

const RUNS = { numRuns: 150 };
const ms = fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 });
const place = fc.stringMatching(/^[A-Za-z ÉéÜü-]{0,12}$/);
const gb = fc.integer({ min: 0, max: 100 });

test('bytes_per_gb and the package volume agree', async () => {
  assert.equal(Number(await one('bytes_per_gb()', [])), BYTES_PER_GB);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('limit', 'unlimit'), gb, async (type, g) => {
      const v = await one<string | null>('package_volume_bytes($1, $2)', [type, g]);
      assert.equal(v === null ? null : Number(v), packageVolumeBytes(type, g));
    }),
    RUNS,
  );
});

test('lease_active and package_active agree with their twins at any clock', async () => {
  await fc.assert(
    fc.asyncProperty(fc.option(ms), ms, ms, async (ended, until, at) => {
      const v = await one<boolean>('lease_active($1, $2, $3)', [
        ended === null ? null : new Date(ended),
        new Date(until),
        new Date(at),
      ]);
      assert.equal(v, isLeaseActive(ended, until, at));
    }),
    RUNS,
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('active', 'suspend', 'refunded'), ms, ms, async (st, finish, at) => {
      const v = await one<boolean>('package_active($1, $2, $3)', [st, new Date(finish), new Date(at)]);
      assert.equal(v, isPackageActive(st, finish, at));
    }),
    RUNS,
  );
});

test('package_over_volume and port_refund_allowance agree, at the byte around the volume too', async () => {
  const used = (g: number) =>
    fc.oneof(
      fc.integer({ min: 0, max: 2 ** 40 }),
      fc.integer({ min: -2, max: 2 }).map((d) => g * BYTES_PER_GB + d),
    );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('limit', 'unlimit'),
      gb.chain((g) => fc.tuple(fc.constant(g), used(g))),
      async (type, [g, u]) => {
        const bytes = Math.max(0, u);
        const v = await one<boolean>('package_over_volume($1, $2, $3)', [type, g, bytes]);
        assert.equal(v, isOverVolume(type, g, bytes));
        const a = await one<string>('port_refund_allowance($1)', [g]);
        assert.equal(Number(a), portRefundAllowanceBytes(g));
      },
    ),
    RUNS,
  );
});

test('exit_matches and place_key agree on places in any case and spacing', async () => {
  const cc = fc.constantFrom('US', 'DE', 'GB', '');
  const conn = fc.constantFrom('wifi', 'cell');
  const want = fc.constantFrom('wifi', 'mobile', 'both');
  await fc.assert(
    fc.asyncProperty(place, async (p) => {
      assert.equal(await one<string>('place_key($1)', [p]), placeKey(p));
    }),
    RUNS,
  );
  await fc.assert(
    fc.asyncProperty(
      fc.record({ cc: cc.filter((c) => c !== ''), reg: place, city: place, conn }),
      fc.record({ country: cc, state: place, city: place, connectionType: want }),
      fc.boolean(),
      async (a, g0, sameCity) => {
        // Half the cases ask for the agent's own place, respaced and recased, so matches are common.
        const g = sameCity
          ? { ...g0, country: a.cc, state: a.reg.toUpperCase(), city: ` ${a.city.replaceAll(' ', '')}` }
          : g0;
        const v = await one<boolean>('exit_matches($1, $2, $3, $4, $5, $6, $7, $8)', [
          a.cc,
          a.reg,
          a.city,
          a.conn,
          g.country,
          g.state,
          g.city,
          g.connectionType,
        ]);
        assert.equal(v, exitMatches(a, g));
      },
    ),
    RUNS,
  );
});
