/**
 * Runs every test suite and prints `N passed, N failed` as the last line.
 * Usage: node scripts/test.ts [unit|e2e|all] [file filter substring]
 *   unit: every `*.test.ts` (unit, integration and API tests, real PostgreSQL)
 *   e2e:  every `*.e2e.ts` (headless Chromium), after building the web app
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const tier = process.argv[2] ?? 'all';
const filter = process.argv[3] ?? '';
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

if (tier === 'unit' || tier === 'all' || tier === 'integration') {
  const files = [
    ...findFiles(join(root, 'packages'), '.test.ts'),
    ...findFiles(join(root, 'apps'), '.test.ts'),
  ];
  console.log(`\n== unit, integration and API tests: ${files.length} files ==`);
  add(await runNodeTest(files, ['--test-concurrency=2'], 25 * 60_000));
}
if (tier === 'e2e' || tier === 'all') {
  const files = findFiles(join(root, 'apps'), '.e2e.ts');
  console.log(`\n== end-to-end tests (headless Chromium): ${files.length} files ==`);
  if (files.length > 0) {
    const buildCode = await run('npm', ['run', 'build', '--silent']);
    if (buildCode !== 0) add({ passed: 0, failed: 1 });
    else add(await runNodeTest(files, ['--test-concurrency=1'], 20 * 60_000));
  }
}

console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed > 0 ? 1 : 0);
