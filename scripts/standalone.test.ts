// The repository stands alone (issue 35 item 6): no start path, script, test or source reads a file
// beside it. The scan (standalone.ts) runs over the repository, and over fixtures that show each of
// its checks failing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { BESIDE, depthAfter, findOutsideReads, MACHINE, repoTextFiles, scanRepo } from './standalone.ts';

const root = join(import.meta.dirname, '..');
/** The scan's own patterns and this file's fixtures are the very mistakes it looks for. */
const EXEMPT = new Set(['scripts/standalone.ts', 'scripts/standalone.test.ts']);

test('nothing in the repository reads beside it', () => {
  const files = repoTextFiles(root);
  assert.ok(files.length > 500, `only ${files.length} files listed: the listing is broken`);
  assert.ok(files.includes('apps/gateway/bench/run.sh') && files.includes('package.json'));
  assert.deepEqual(scanRepo(root, EXEMPT), []);
});

test('depth arithmetic: a climb that comes back down still went above the root', () => {
  assert.equal(depthAfter(2, ['../..']), 0);
  assert.equal(depthAfter(2, ['../../../main/x']), -1);
  assert.equal(depthAfter(1, ['..', 'packages', 'geo']), 2);
});

test('the folder beside the repository and machine paths are found in any text file', () => {
  const hits = (file: string, text: string) => findOutsideReads(file, text).length;
  assert.equal(hits('README.md', `The spec is \`${BESIDE}/SPEC.md\`.`), 2);
  assert.equal(hits('apps/x/src/a.ts', `const f = '${MACHINE}elsewhere/data/postal.tsv.gz';`), 1);
  assert.equal(hits('.ci/run', `cp ${MACHINE}main/data/x .`), 1);
  assert.equal(hits('apps/x/src/a.ts', "const f = 'https://example.com/network/job/1';"), 0);
  assert.equal(hits('docs/a.md', 'SOCKS_BENCH=/path/to/bench/socks npm run bench:gateway'), 0);
  assert.equal(hits('apps/x/src/a.ts', '/** The limit of SPEC section 9. */'), 1);
  assert.equal(hits('apps/x/src/a.ts', '// SPEC 7: the public API answers 403.'), 1);
  assert.equal(hits('apps/x/src/a.ts', '// As geo-notes.md says.'), 1);
  assert.equal(hits('apps/x/src/a.ts', '// Rules §7: the public API answers 403 (IPV4_SPECIAL aside).'), 0);
});

test('TypeScript resolutions above the root are found, from the file or from a constant', () => {
  const file = 'apps/gateway/bench/http-proxy/shared.ts';
  const find = (text: string) => findOutsideReads(file, text);
  assert.match(
    find("const d = resolve(import.meta.dirname, '../../../../../other/bench');")[0]!,
    /climbs above/,
  );
  assert.equal(find("const d = join(import.meta.dirname, '../../../..', 'docs');").length, 0);
  assert.equal(find("const d = join(__dirname, '..', '..', '..', '..', '..', 'x');").length, 1);
  assert.equal(find("const d = join(dirname(fileURLToPath(import.meta.url)), '../../../../..');").length, 1);
  assert.equal(find("const u = new URL('../../../../../x.json', import.meta.url);").length, 1);
  assert.equal(find("const u = new URL('../../../../x.json', import.meta.url);").length, 0);
  const viaRoot = [
    "const root = resolve(import.meta.dirname, '../../../..');",
    "const s = resolve(root, '../data');",
  ];
  assert.deepEqual(
    findOutsideReads(file, viaRoot.join('\n')).map((f) => f.split(':')[1]),
    ['2'],
    'the second line climbs from the root',
  );
  assert.equal(findOutsideReads(file, `${viaRoot[0]}\nconst s = resolve(root, 'data');`).length, 0);
});

test('shell scripts climbing from their own folder or from a root made that way are found', () => {
  const file = 'apps/gateway/bench/run.sh';
  const find = (text: string) => findOutsideReads(file, text);
  assert.equal(find('HERE=$(cd "$(dirname "$0")/../../../.." && pwd)').length, 1);
  const root = 'ROOT=$(cd "$(dirname "$0")/../../.." && pwd)';
  assert.equal(find(root).length, 0);
  assert.equal(find(`${root}\nGEN=\${GEN:-$ROOT/../bench}`).length, 1);
  assert.equal(find(`${root}\nGEN=\${GEN:-$ROOT/apps/../bench}`).length, 0);
  assert.equal(findOutsideReads('.ci/run', 'cd "$(dirname "$0")/../.."').length, 1);
  const twoSteps = ['HERE=$(cd "$(dirname "$0")" && pwd)', 'ROOT=$(cd "$HERE/../../.." && pwd)'];
  assert.equal(find([...twoSteps, 'GEN=$ROOT/../bench'].join('\n')).length, 1, 'a root made from HERE');
  assert.equal(find([...twoSteps, 'GEN=$ROOT/bench'].join('\n')).length, 0);
});

test("package.json scripts run in the package's folder and may not climb above the root", () => {
  const pkg = (script: string) => JSON.stringify({ scripts: { bench: script } });
  assert.equal(findOutsideReads('package.json', pkg('bash ../bench/run.sh')).length, 1);
  assert.equal(findOutsideReads('apps/web/package.json', pkg('node ../../scripts/x.ts')).length, 0);
  assert.equal(findOutsideReads('apps/web/package.json', pkg('node ../../../x.ts')).length, 1);
});
