/**
 * Runs the test tiers and prints `N passed, N failed` as the last line.
 * Usage: node scripts/test.ts [tiers] [file filter substring]
 *   tiers: unit, integration, e2e, all (default), or several comma separated (`unit,integration`)
 *   unit:        `*.test.ts` that need no database: pure logic, parsers, loopback sockets
 *   integration: `*.int.test.ts`: services, repositories and routes on a real database
 *                (the local PostgreSQL, a fresh database per file; some also on PGlite)
 *   e2e:         `*.e2e.ts` (headless Chromium), after building the web app
 * The rule is the file name. The runner also follows each unit file's relative imports: one that
 * reaches the database (`@pm/db/testing`, `createDb`) runs with the integration tier instead and
 * is named in a warning, so `test:unit` never needs PostgreSQL even before the file is renamed.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(import.meta.dirname, '..');
const TIERS = ['unit', 'integration', 'e2e'] as const;
type Tier = (typeof TIERS)[number];
const tierArg = process.argv[2] ?? 'all';
const filter = process.argv[3] ?? '';
const tiers = new Set<string>(tierArg === 'all' ? TIERS : tierArg.split(','));
for (const t of tiers) {
  if (!TIERS.includes(t as Tier)) {
    console.error(`unknown tier "${t}": use ${TIERS.join(', ')} or all`);
    process.exit(2);
  }
}
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';

function findFiles(dir: string, suffix: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findFiles(p, suffix, out);
    else if (name.endsWith(suffix) && p.includes(filter)) out.push(relative(root, p));
  }
  return out;
}

/** What marks a file as using a database: the test database helpers, or opening one. */
const DATABASE_USE = /from '@pm\/db\/testing'|\bcreateDb\(|\bcreateTestDatabase\(/;
/** Value imports (not `import type`) of relative files. */
const RELATIVE_IMPORT = /^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.{1,2}\/[^']+\.tsx?)'/gm;

/** Whether a test file, or a file it imports relatively (transitively), uses a database. */
function usesDatabase(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  if (DATABASE_USE.test(text)) return true;
  for (const m of text.matchAll(RELATIVE_IMPORT)) {
    if (usesDatabase(resolve(dirname(file), m[1]!), seen)) return true;
  }
  return false;
}

interface Counts {
  passed: number;
  failed: number;
}

/** Runs `node --test` on files, echoing its output and reading the pass/fail summary lines. */
function runNodeTest(files: string[], extraArgs: string[], limitMs: number): Promise<Counts> {
  return new Promise((resolve) => {
    if (files.length === 0) return resolve({ passed: 0, failed: 0 });
    const child = spawn(
      process.execPath,
      ['--test', '--test-reporter=spec', '--test-timeout=300000', ...extraArgs, ...files],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
    );
    let tail = '';
    let timedOut = false;
    // A hung hook or handle must not stall CI: past the tier's limit the run is killed and fails.
    const watchdog = setTimeout(() => {
      timedOut = true;
      console.error(`\ntest run exceeded ${limitMs / 60_000} minutes: stopped`);
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    });
    child.on('close', (code) => {
      clearTimeout(watchdog);
      const passed = Number(/ℹ pass (\d+)/.exec(tail)?.[1] ?? 0);
      let failed = Number(/ℹ fail (\d+)/.exec(tail)?.[1] ?? 0);
      const cancelled = Number(/ℹ cancelled (\d+)/.exec(tail)?.[1] ?? 0);
      failed += cancelled;
      // A runner that died without a summary still counts as a failure.
      if ((code !== 0 || timedOut) && failed === 0) failed = 1;
      resolve({ passed, failed });
    });
  });
}

function run(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const total: Counts = { passed: 0, failed: 0 };
const add = (c: Counts) => {
  total.passed += c.passed;
  total.failed += c.failed;
};

if (tiers.has('unit') || tiers.has('integration')) {
  const all = [
    ...findFiles(join(root, 'packages'), '.test.ts'),
    ...findFiles(join(root, 'apps'), '.test.ts'),
    ...findFiles(join(root, 'scripts'), '.test.ts'),
  ];
  const unit: string[] = [];
  const integration: string[] = [];
  for (const file of all) {
    if (file.endsWith('.int.test.ts')) integration.push(file);
    else if (usesDatabase(join(root, file))) {
      console.warn(
        `warning: ${file} uses a database: run with the integration tier; rename it *.int.test.ts`,
      );
      integration.push(file);
    } else unit.push(file);
  }
  if (tiers.has('unit')) {
    console.log(`\n== unit tests (no database): ${unit.length} files ==`);
    add(await runNodeTest(unit, ['--test-concurrency=2'], 10 * 60_000));
  }
  if (tiers.has('integration')) {
    console.log(
      `\n== integration tests (PostgreSQL ${process.env.DATABASE_URL}): ${integration.length} files ==`,
    );
    add(await runNodeTest(integration, ['--test-concurrency=2'], 35 * 60_000));
  }
}
if (tiers.has('e2e')) {
  const files = findFiles(join(root, 'apps'), '.e2e.ts');
  console.log(`\n== end-to-end tests (headless Chromium): ${files.length} files ==`);
  if (files.length > 0) {
    const buildCode = await run('npm', ['run', 'build', '--silent']);
    if (buildCode !== 0) add({ passed: 0, failed: 1 });
    else add(await runNodeTest(files, ['--test-concurrency=1'], 35 * 60_000));
  }
}

console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed > 0 ? 1 : 0);
