// No folder cycle inside apps/web/src/features: features import libraries (apps/web/src/lib) and
// may use one another in one direction only. The fixtures show the check can fail.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeCycle, folderCycles, folderEdges } from './folder-cycles.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = mkdtempSync(join(tmpdir(), 'folder-cycles-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes a layout of files (path -> text) under a fresh folder and returns its path. */
function layout(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('the web features import one another without a cycle', () => {
  const features = join(root, 'apps/web/src/features');
  const edges = folderEdges(features);
  // The graph is read at all: features do use one another (the shop shows the checks' panels).
  assert.ok(edges.length > 0, 'no import between feature folders was found');
  const cycles = folderCycles(edges);
  assert.deepEqual(cycles.map(describeCycle), []);
});

test('a folder pair importing each other is a cycle, named with its files', () => {
  const dir = layout('pair', {
    'shop/format.ts': 'export const f = 1;\n',
    // A '//' inside a string is no comment: the import after it still counts.
    'shop/page.tsx':
      "const url = 'https://example.com/*';\nimport { held } from '../leases/held.ts';\nexport const p = [url, held];\n",
    'leases/held.ts': "import { f } from '../shop/format.ts';\nexport const held = f;\n",
  });
  const cycles = folderCycles(folderEdges(dir));
  assert.equal(cycles.length, 1);
  assert.deepEqual(cycles[0]?.folders, ['leases', 'shop']);
  assert.match(
    describeCycle(cycles[0]!),
    /leases -> shop: leases\/held\.ts imports '\.\.\/shop\/format\.ts'/,
  );
});

test('a cycle through three folders, a dynamic import and a type import counts', () => {
  const dir = layout('ring', {
    'a/x.ts': "export type X = import('../b/y.ts').Y;\n",
    'b/y.ts': "import type { Z } from '../c/z.ts';\nexport type Y = Z;\n",
    'c/z.ts': "export const load = () => import('../a/x.ts');\nexport type Z = number;\n",
  });
  assert.deepEqual(
    folderCycles(folderEdges(dir)).map((c) => c.folders),
    [['a', 'b', 'c']],
  );
});

test('one-way imports, a shared library beside the folders and commented imports are no cycle', () => {
  const dir = layout('dag', {
    'shop/page.tsx': "import { held } from '../leases/held.ts';\nimport { f } from '../../lib/format.ts';\n",
    // import { p } from '../shop/page.tsx';  (a comment is not an import)
    'leases/held.ts': "// import { p } from '../shop/page.tsx';\nexport const held = 1;\n",
  });
  const edges = folderEdges(dir);
  assert.deepEqual(
    edges.map((e) => `${e.from}->${e.to}`),
    ['shop->leases'],
  );
  assert.deepEqual(folderCycles(edges), []);
});
