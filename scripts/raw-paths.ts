/**
 * Tests call routes through the endpoint contract (issue 35 item 3): the server tests through
 * `callRoute` (apps/server/src/test/route.ts), the stack tests through `stackApi`
 * (apps/web/e2e/support/stackVisit.ts), both taking an operation of `ENDPOINTS` and typed input.
 * A raw-path call is the exception and says why: a `// raw path: <reason>` comment on its line or
 * on one of the few lines above it. This scanner finds the raw-path calls that do not.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A raw-path call without its reason. */
export interface RawCall {
  file: string;
  line: number;
  text: string;
}

/**
 * The call forms that name a path themselves: Fastify's `inject` (the server tests), and a
 * `fetch` to a test stack's market or Ports API (`${stack.apiUrl}...`, the stack tests).
 */
const RAW_CALL = [/\.inject\(/, /\bfetch\(\s*`\$\{[\w.]*(apiUrl|portsUrl)\}/];
/** The reason a raw call carries: a comment naming why, not an empty marker. */
const REASON = /\/\/ raw path: \S.{3,}/;
/** How far above its call a reason may stand (a call's comment, a multi-line call's first lines). */
const REASON_REACH = 3;

/** The lines of `text` that make a raw-path call without a reason near it. */
export function rawCallsIn(file: string, text: string): RawCall[] {
  const lines = text.split('\n');
  const out: RawCall[] = [];
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line) || !RAW_CALL.some((re) => re.test(line))) return;
    // The nearest marker above (or on) the call decides: a marker without a reason explains nothing.
    const near = lines.slice(Math.max(0, i - REASON_REACH), i + 1).reverse();
    const marker = near.find((l) => l.includes('// raw path:'));
    if (!marker || !REASON.test(marker)) out.push({ file, line: i + 1, text: line.trim() });
  });
  return out;
}

/** Whether a file is test code that calls routes: tests, e2e journeys and their support. */
export function isTestFile(path: string): boolean {
  return /\.(test|e2e)\.tsx?$/.test(path) || /\/e2e\/support\//.test(path) || /\/src\/test\//.test(path);
}

/**
 * The helpers that turn an operation into its path (they make the call the contract describes);
 * their `inject` and `fetch` are the contract's, not raw.
 */
export const CONTRACT_HELPERS = ['apps/server/src/test/route.ts', 'apps/web/e2e/support/stackVisit.ts'];
/** The scanner's own test: its samples are raw calls on purpose. */
const SCANNER_TEST = 'scripts/raw-paths.test.ts';

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
}

/** Every raw-path call without a reason in the repository's test code under `dirs`. */
export function repoRawCalls(root: string, dirs: string[]): RawCall[] {
  const files: string[] = [];
  for (const dir of dirs) walk(join(root, dir), files);
  return files
    .map((f) => relative(root, f))
    .filter((f) => isTestFile(f) && !CONTRACT_HELPERS.includes(f) && f !== SCANNER_TEST)
    .flatMap((f) => rawCallsIn(f, readFileSync(join(root, f), 'utf8')));
}
