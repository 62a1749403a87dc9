// Tests call routes through the endpoint contract (issue 35 item 3): `callRoute` in the server
// tests, `stackApi` in the stack tests. A raw-path call needs a `// raw path: <reason>` comment;
// the samples below show the check can fail.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawCallsIn, repoRawCalls } from './raw-paths.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Test files not yet moved to the contract's helpers (issue 35 item 3), whose raw calls were
 * tolerated until they were. Every file is converted now, so the list is empty; it stays as the
 * mechanism's place: it may only shrink (a file that no longer calls a raw path must leave it, the
 * second test fails otherwise), and no file may join it.
 */
const NOT_YET_CONVERTED = new Set<string>([]);

const calls = repoRawCalls(root, ['apps', 'packages', 'scripts']);

test('every raw-path call in the tests says why', () => {
  const unexplained = calls.filter((c) => !NOT_YET_CONVERTED.has(c.file));
  assert.deepEqual(
    unexplained.map((c) => `${c.file}:${c.line} ${c.text}`),
    [],
    'call the operation with callRoute (apps/server/src/test/route.ts) or stackApi, or say `// raw path: <reason>`',
  );
});

test('the files not yet converted still call raw paths (the list only shrinks)', () => {
  const withRawCalls = new Set(calls.map((c) => c.file));
  assert.deepEqual(
    [...NOT_YET_CONVERTED].filter((f) => !withRawCalls.has(f)),
    [],
    'converted: take these files off NOT_YET_CONVERTED',
  );
});

test('an inject or a fetch to the API without a reason is found; a reason near it clears it', () => {
  const sample = [
    "const a = await t.app.inject({ method: 'GET', url: '/leases' });",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of test source, not a template
    'const c = await fetch(`${stack.apiUrl}/accounts/my`);',
    '// a comment naming .inject( is no call',
    '// raw path: a malformed percent-encoding the contract cannot express',
    "const b = await t.app.inject({ method: 'GET', url: '/leases/%zz' });",
    '// raw path:',
    "const d = await app.inject({ url: '/healthz' });",
  ].join('\n');
  assert.deepEqual(
    rawCallsIn('sample.test.ts', sample).map((c) => c.line),
    [1, 2, 7],
    'the call without a comment, the fetch, and the one whose comment gives no reason',
  );
});

test('a reason reaches a multi-line call from up to three lines above', () => {
  const near = '// raw path: /healthz is outside the contract\nconst res = await t.app.inject({\n';
  assert.deepEqual(rawCallsIn('near.test.ts', near), []);
  const far = `// raw path: too far above\n\n\n\n${near.split('\n')[1]}`;
  assert.equal(rawCallsIn('far.test.ts', far).length, 1);
});
