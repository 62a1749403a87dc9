// The house rules: docs/ARCHITECTURE.md's "Who writes which table" and "Who reads another module's
// table" against the code, and the lint
// rules of biome.json refusing deliberate violations (written to a temp copy of the layout, never
// left in the code): Drizzle tables outside repositories, deep imports of another app's internals
// outside the test stack, floating promises.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkRead,
  checkWrite,
  findReads,
  findWrites,
  ownerApp,
  parseOwnerTable,
  parseReaderTable,
  repoReads,
  repoWrites,
  schemaHelpers,
  schemaTables,
  type Write,
  writerOf,
} from './table-owners.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const rows = parseOwnerTable(read('docs/ARCHITECTURE.md'));
const schemaDir = 'packages/db/src/schema';
const schemaSources = readdirSync(join(root, schemaDir)).map((f) => read(`${schemaDir}/${f}`));
const tables = schemaTables(schemaSources);
const helpers = schemaHelpers(schemaSources, tables);
const readers = parseReaderTable(read('docs/ARCHITECTURE.md'));
const writes = repoWrites(root, tables);
const reads = repoReads(root, tables, helpers);
const serverModules = new Set(readdirSync(join(root, 'apps/server/src/modules')));

test('the owner table lists every table of the schema, and only those', () => {
  const listed = rows.flatMap((r) => r.tables).filter((t) => !t.includes('*'));
  assert.deepEqual([...new Set(listed)].sort(), [...new Set(tables.values())].sort());
});

test('every write outside test code is by the table owner or a writer its row names', () => {
  assert.ok(writes.length > 50, `found only ${writes.length} writes: the scan is broken`);
  assert.ok(
    writes.some((w) => w.app === 'gateway' && w.table === 'leases'),
    "the gateway's raw SQL is scanned",
  );
  assert.deepEqual(writes.map((w) => checkWrite(w, rows)).filter(Boolean), []);
});

test('every owner writes its tables (a server owner through the module its row names first)', () => {
  const missing: string[] = [];
  for (const row of rows) {
    const app = ownerApp(row);
    const mod = /^server \((\w+)/.exec(row.owner)?.[1];
    const byOwner = (w: Write) =>
      (w.app === app || (w.app === '@pm/db' && row.also.includes('`@pm/db`'))) &&
      (!mod || !serverModules.has(mod) || w.module === mod);
    for (const table of row.tables.filter((t) => [...tables.values()].includes(t))) {
      if (!writes.some((w) => w.table === table && byOwner(w))) missing.push(`${table} (${row.owner})`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the ownership check refuses writes the table does not allow', () => {
  const writesIn = (file: string, src: string) =>
    findWrites(file, src, tables).map((w) => checkWrite({ ...w, ...writerOf(file) }, rows));
  const gateway = 'apps/gateway/src/store/credit.ts';
  assert.match(writesIn(gateway, "db.query('UPDATE accounts SET balance_c = 0')")[0]!, /neither its owner/);
  assert.match(writesIn(gateway, 'db.query(`DELETE FROM txrecords`)')[0]!, /neither its owner/);
  const pricing = 'apps/server/src/modules/pricing/pricing.repository.ts';
  assert.match(writesIn(pricing, 'await tx.insert(leases).values(row);')[0]!, /module pricing/);
  assert.deepEqual(writesIn(pricing, 'await tx.insert(pricingRules).values(rows);'), [undefined]);
  // Not writes: comments, row locks, upserts' DO UPDATE, foreign keys' ON UPDATE.
  const quiet = [
    '// UPDATE accounts SET x = 1',
    '/* DELETE FROM leases */',
    "db.query('SELECT 1 FROM accounts FOR UPDATE')",
    "db.query('ALTER TABLE leases ADD FOREIGN KEY (agent_id) REFERENCES agents ON UPDATE CASCADE')",
    "db.query('INSERT INTO agent_probes (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET ok = true')",
  ].join('\n');
  assert.deepEqual(
    findWrites(gateway, quiet, tables).map((w) => w.table),
    ['agent_probes'],
  );
});

test('every server module reads only its own tables, the ones its rows name, or a listed read', () => {
  assert.ok(reads.length > 40, `found only ${reads.length} reads: the scan is broken`);
  assert.ok(
    reads.some((r) => r.module === 'leases' && r.table === 'leases'),
    "the leases module's own reads are scanned",
  );
  assert.deepEqual(helpers.get('ACTIVE_LEASE'), ['leases'], 'SQL helpers count as reads of their tables');
  assert.deepEqual(reads.map((r) => checkRead(r, rows, readers)).filter(Boolean), []);
});

test('the listed reads name real tables and modules, and none of leases', () => {
  assert.ok(readers.length > 0, 'the "Who reads another module\'s table" rows are parsed');
  for (const r of readers) {
    assert.ok([...tables.values()].includes(r.table), `${r.table} is a table`);
    for (const m of r.readers) assert.ok(serverModules.has(m), `${m} is a server module`);
  }
  assert.ok(!readers.some((r) => r.table === 'leases'), 'other modules ask the leases module');
});

test('the read check refuses a module reading leases, by table, SQL helper or raw SQL', () => {
  const refusals = (file: string, src: string) =>
    findReads(file, src, tables, helpers)
      .map((r) => checkRead(r, rows, readers))
      .filter(Boolean);
  const webhooks = 'apps/server/src/modules/webhooks/webhooks.repository.ts';
  assert.match(
    refusals(webhooks, "import { leases, type Db } from '@pm/db';")[0]!,
    /reads leases .* webhooks/,
  );
  const agents = 'apps/server/src/modules/agents/agents.repository.ts';
  assert.match(refusals(agents, "import { ACTIVE_LEASE } from '@pm/db';")[0]!, /reads leases/);
  const statics = 'apps/server/src/modules/static/static.repository.ts';
  assert.match(refusals(statics, 'db.execute(sql`SELECT 1 FROM leases WHERE id = 1`);')[0]!, /reads leases/);
  assert.match(refusals(statics, 'sql`SELECT 1 FROM agents a JOIN leases l ON true`')[0]!, /reads leases/);
  // The owner reads its table; a writer its row names reads it; a listed read passes.
  const own = 'apps/server/src/modules/leases/leases.repository.ts';
  assert.equal(findReads(own, "import { ACTIVE_LEASE, leases } from '@pm/db';", tables, helpers).length, 2);
  assert.deepEqual(refusals(own, "import { ACTIVE_LEASE, leases } from '@pm/db';"), []);
  const ledger = 'apps/server/src/modules/ledger/ledger.repository.ts';
  assert.deepEqual(refusals(ledger, "import { accounts } from '@pm/db';"), []);
  const payments = 'apps/server/src/modules/payments/payments.repository.ts';
  assert.deepEqual(refusals(payments, "import { accounts } from '@pm/db';"), []);
  assert.match(refusals(payments, "import { txrecords } from '@pm/db';")[0]!, /ask the ledger module/);
  // Tables of other apps (agents: the gateway's) and comments are not checked.
  assert.deepEqual(refusals(webhooks, "import { agents } from '@pm/db';\n// FROM leases"), []);
});

test("biome.json lets non-repositories import only @pm/db's handle and helpers, not its tables", () => {
  const exported = ['packages/db/src/client.ts', 'packages/db/src/rate-limits.ts'].flatMap((f) =>
    [...read(f).matchAll(/^export (?:async )?(?:const|function|type|interface) (\w+)/gm)].map((m) => m[1]!),
  );
  const config = JSON.parse(read('biome.json'));
  const restrictions = config.overrides.map(
    (o: { linter: { rules: { style: { noRestrictedImports: { options: { paths: object } } } } } }) =>
      o.linter.rules.style.noRestrictedImports.options.paths,
  );
  const allowLists = restrictions.flatMap((paths: Record<string, { allowImportNames?: string[] }>) =>
    paths['@pm/db'] ? [paths['@pm/db'].allowImportNames] : [],
  );
  assert.equal(allowLists.length, 2, 'everywhere but the repositories and the test stack');
  for (const allowed of allowLists) assert.deepEqual([...allowed].sort(), exported.sort());
});

// Each fixture: a file of the repository's layout and the house-rule messages Biome must give it.
const TESTING = ['@pm/db', 'testing'].join('/'); // spelt apart: the test runner reads that import as a database use
const IMPORTS = 'lint/style/noRestrictedImports';
const FLOATING = 'lint/nursery/noFloatingPromises';
const FIXTURES: Record<string, { src: string; refused: [string, RegExp][] }> = {
  'apps/server/src/modules/widgets/widgets.service.ts': {
    src: "import { agents } from '@pm/db';\nexport const t = agents;\n",
    refused: [[IMPORTS, /Drizzle tables only in repositories/]],
  },
  'apps/server/src/modules/widgets/widgets.jobs.ts': {
    src: "import { eq } from 'drizzle-orm';\nimport type { PgTable } from 'drizzle-orm/pg-core';\nexport const f = [eq] as unknown as PgTable[];\n",
    refused: [
      [IMPORTS, /Drizzle only in repositories/],
      [IMPORTS, /Drizzle only in repositories/],
    ],
  },
  'apps/server/src/modules/widgets/widgets.seed.ts': {
    src: `import { buildAccount } from '${TESTING}';\nexport const b = buildAccount;\n`,
    refused: [[IMPORTS, /only in the test stack/]],
  },
  'apps/server/src/modules/widgets/widgets.mapper.ts': {
    src: "import { createDb, type Db, type DbOrTx } from '@pm/db';\nexport const f = createDb as unknown as Db | DbOrTx;\n",
    refused: [],
  },
  'apps/server/src/modules/widgets/widgets.repository.ts': {
    src: "import { agents, type Db } from '@pm/db';\nimport { eq } from 'drizzle-orm';\nexport const f = (db: Db) => db.select().from(agents).where(eq(agents.id, 'a'));\n",
    refused: [],
  },
  'apps/server/src/platform/notify.ts': {
    src: "import { sql } from 'drizzle-orm';\nexport const q = sql`SELECT 1`;\n",
    refused: [],
  },
  'apps/server/src/platform/tables.ts': {
    src: "import { leases } from '@pm/db';\nexport const t = leases;\n",
    refused: [[IMPORTS, /Drizzle tables only in repositories/]],
  },
  'apps/identity/src/deep.ts': {
    src: "import { hashAgentKey } from '@pm/gateway/store/agent-registry';\nexport const h = hashAgentKey;\n",
    refused: [[IMPORTS, /deep import of another app's internals/]],
  },
  'apps/server/src/modules/widgets/relative.ts': {
    src: "import { startGateway } from '../../../../gateway/src/index.ts';\nexport const s = startGateway;\n",
    refused: [[IMPORTS, /deep import of another app's internals/]],
  },
  'apps/server/src/modules/widgets/entry.ts': {
    src: "import { startGateway } from '@pm/gateway';\nexport const s = startGateway;\n",
    refused: [],
  },
  'apps/server/src/modules/widgets/widgets.int.test.ts': {
    src: `import { agents } from '@pm/db';\nimport { curl } from '@pm/gateway/session/harness.testkit';\nimport { buildAgent } from '${TESTING}';\nexport const t = [agents, curl, buildAgent];\n`,
    refused: [],
  },
  'apps/devnet/src/widgets.ts': {
    src: "import { createOverrideGeo } from '@pm/gateway/geo/geo';\nexport const g = createOverrideGeo;\n",
    refused: [],
  },
  'apps/gateway/src/floating.ts': {
    src: 'export async function flush(): Promise<void> {}\nexport function stop() {\n  flush();\n}\n',
    refused: [[FLOATING, /"floating" Promise/]],
  },
  'apps/gateway/src/floating-import.ts': {
    src: "import { flush } from './floating.ts';\nexport function close() {\n  flush().then(() => {});\n}\n",
    refused: [[FLOATING, /"floating" Promise/]],
  },
  'apps/gateway/src/awaited.ts': {
    src: "import { flush } from './floating.ts';\nexport async function close() {\n  await flush();\n  void flush();\n  return flush();\n}\n",
    refused: [],
  },
};

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'house-rules-'));
  const config = JSON.parse(read('biome.json'));
  delete config.$schema;
  config.vcs = { enabled: false };
  writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
  for (const [file, { src }] of Object.entries(FIXTURES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), src);
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('lint refuses each deliberate violation with its rule, and passes the clean equivalents', () => {
  const biome = join(root, 'node_modules/.bin/biome');
  const only = ['--only=style/noRestrictedImports', '--only=nursery/noFloatingPromises'];
  const run = spawnSync(biome, ['lint', '--reporter=json', '--max-diagnostics=none', ...only, '.'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.ok(run.stdout, `biome gave no report: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as {
    diagnostics: { category: string; message: string; location: { path: string } }[];
  };
  for (const [file, { refused }] of Object.entries(FIXTURES)) {
    const found = report.diagnostics.filter((d) => d.location.path === file);
    assert.equal(found.length, refused.length, `${file}: ${JSON.stringify(found.map((d) => d.message))}`);
    refused.forEach(([rule, message], i) => {
      assert.equal(found[i]!.category, rule, file);
      assert.match(found[i]!.message, message, file);
    });
  }
  assert.notEqual(run.status, 0, 'biome exits non-zero on the violations');
});
