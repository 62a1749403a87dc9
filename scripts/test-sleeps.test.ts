/**
 * One clock in tests (docs/CONVENTIONS.md, "Waiting in tests"): a test waits on a condition with
 * `waitFor` of `@pm/testkit`, or moves an injected clock; it does not sleep for a fixed time. The few
 * sleeps about real time (an outage's length, a window in which nothing may happen, a pace) say so
 * on their line with `// sleeps: <reason>`. No test file defines a waitFor of its own.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');

/** The test stack: test files, test kits and the folders of test helpers and browser journeys. */
function isTestCode(path: string): boolean {
  return (
    /\.(test|e2e|testkit)\.ts$/.test(path) ||
    path.startsWith('apps/server/src/test/') ||
    path.startsWith('apps/web/e2e/') ||
    path === 'apps/identity/src/test-support.ts'
  );
}

/** waitFor itself is the one place that may pause between checks. */
const EXEMPT = new Set(['packages/testkit/src/wait.ts', 'scripts/test-sleeps.test.ts']);

const SLEEP = [
  /new Promise(?:<[^>]*>)?\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*setTimeout\(\s*\1\s*,/, // new Promise((r) => setTimeout(r, ms))
  /(?<![.\w])(?:sleep|delay)\(/, // sleep(ms), delay(ms), timers/promises' setTimeout as sleep
  /\.waitForTimeout\(/, // Playwright's fixed wait
];
const REASON = /\/\/ sleeps: \S/;
const OWN_WAIT =
  /(?:function\s+(?:waitFor|until|eventually|poll)\b|const\s+(?:waitFor|until|eventually|poll)\s*=\s*(?:async\s*)?\()/;
/** A timer racing a condition bounds a wait; it is not a sleep. */
const DEADLINE = /Promise\.race\(/;

export interface Finding {
  line: number;
  kind: 'sleep without a reason' | 'own waitFor';
  text: string;
}

/** The fixed sleeps without a `// sleeps:` reason and the home-made waitFors in one file's text. */
export function findSleeps(text: string): Finding[] {
  const out: Finding[] = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/^\s*(\/\/|\*).*$/, ''); // a comment line mentions, it does not sleep
    if (SLEEP.some((re) => re.test(code)) && !DEADLINE.test(code) && !REASON.test(line))
      out.push({ line: i + 1, kind: 'sleep without a reason', text: line.trim() });
    if (OWN_WAIT.test(code)) out.push({ line: i + 1, kind: 'own waitFor', text: line.trim() });
  });
  return out;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.tsx?$/.test(name)) out.push(relative(root, p));
  }
  return out;
}

test('the guard finds a fixed sleep, a sleep(ms), a Playwright wait and a home-made waitFor', () => {
  const fixture = [
    'await new Promise((r) => setTimeout(r, 400));',
    'await new Promise<void>((res) => setTimeout(res, 20));',
    'await sleep(1200);',
    'await page.waitForTimeout(500);',
    'async function waitFor(check: () => boolean, timeoutMs: number) {',
    'async function until(check: () => Promise<boolean>, ms: number) {',
    'const until = async (id: string) => {',
  ].join('\n');
  assert.deepEqual(
    findSleeps(fixture).map((f) => [f.line, f.kind]),
    [
      [1, 'sleep without a reason'],
      [2, 'sleep without a reason'],
      [3, 'sleep without a reason'],
      [4, 'sleep without a reason'],
      [5, 'own waitFor'],
      [6, 'own waitFor'],
      [7, 'own waitFor'],
    ],
  );
});

test('the guard lets a sleep with its reason, a deadline timer and the shared waitFor pass', () => {
  const fixture = [
    'await sleep(1200); // sleeps: a whole meter interval passes unchanged',
    'const timer = setTimeout(() => reject(new Error("no answer")), 2000);',
    "await waitFor(() => open, { timeoutMs: 2000, what: 'open' });",
    '// a comment may say new Promise((r) => setTimeout(r, 100)) without sleeping',
    "import { waitFor } from '@pm/testkit';",
    'const until = new Date(LEASE_DURATION_MS);',
    'await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);',
  ].join('\n');
  assert.deepEqual(findSleeps(fixture), []);
});

test('no test file sleeps for a fixed time without a reason, or defines its own waitFor', () => {
  const found: string[] = [];
  for (const dir of ['apps', 'packages', 'scripts']) {
    for (const path of walk(join(root, dir))) {
      if (!isTestCode(path) || EXEMPT.has(path)) continue;
      for (const f of findSleeps(readFileSync(join(root, path), 'utf8')))
        found.push(`${path}:${f.line}: ${f.kind}: ${f.text}`);
    }
  }
  assert.deepEqual(
    found,
    [],
    'wait with waitFor from @pm/testkit or move the injected clock; a sleep about real time says why on its line (`// sleeps: <reason>`)',
  );
});
