/**
 * Finds code that reads beside the repository (issue 35 item 6: a clone with nothing next to it
 * must install, start and pass its tests). Checked in every tracked text file:
 * - the folder the project's material once sat in beside the repository (`BESIDE`), absolute
 *   paths of the development machine (`MACHINE`), and citations of the documents kept there (the
 *   spec's sections, its notes) where docs/rules.md and the repository's own docs now say it;
 * - path resolutions from a file's own folder that climb above the repository root: `resolve`/`join`
 *   from `import.meta.dirname`, `__dirname`, `dirname(fileURLToPath(import.meta.url))` or a constant
 *   made from one, `new URL('..', import.meta.url)`, and in shell `$(dirname "$0")/..` or a
 *   `$VAR/..` whose VAR was made that way;
 * - package.json scripts whose relative paths climb above the repository root.
 * A static scan: it sees literal segments only, which is how every path here is written.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/** Extensions of the files scanned; extensionless files under `.ci/` are shell too. */
const TEXT = /\.(?:[cm]?[jt]sx?|sh|json|ya?ml|md)$/;
const SHELL = /(?:\.sh|^\.ci\/[^.]+)$/;

/**
 * The folder beside the repository and the development machine's root, spelled in pieces so that
 * the scan's own source names neither (checks of the landing refuse such names in any file).
 */
export const BESIDE = ['..', 'shared'].join('/');
export const MACHINE = `/${'work'}/`;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Literal mentions of what lies beside the repository on the development machine. */
const OUTSIDE_LITERALS: ReadonlyArray<[RegExp, string]> = [
  [new RegExp(`${escapeRegExp(BESIDE)}\\b`), `names ${BESIDE}, a folder beside the repository`],
  [
    new RegExp(`(?:^|[\\s'"\x60(=:])${escapeRegExp(MACHINE)}`),
    `names ${MACHINE}, an absolute path of the development machine`,
  ],
  [
    /\bSPEC(?: sections?)? \d|\bSPEC\.md\b|\b(?:geo|identity|ports)-notes\.md\b|\bREFERENCE\.md\b/,
    'cites a document that is not in the repository: cite docs/rules.md ("rules §N") or a doc here',
  ],
];

/** Expressions that stand for the folder of the file they are written in. */
const OWN_DIR = String.raw`import\.meta\.dirname|__dirname|dirname\(\s*fileURLToPath\(\s*import\.meta\.url\s*\)\s*\)`;
/** String literals (no interpolation) separated by commas. */
const LITERALS = String.raw`(?:\s*,\s*(?:'[^'\n]*'|"[^"\n]*"|\x60[^\x60$\n]*\x60))+`;

/** The folder depth below the root after applying relative segments; negative: above the root. */
export function depthAfter(start: number, segments: string[]): number {
  let depth = start;
  let lowest = start;
  for (const part of segments.flatMap((s) => s.split('/'))) {
    if (part === '..') depth -= 1;
    else if (part !== '.' && part !== '') depth += 1;
    lowest = Math.min(lowest, depth);
  }
  return lowest < 0 ? lowest : depth;
}

const unquote = (args: string) =>
  [...args.matchAll(/'([^']*)'|"([^"]*)"|`([^`]*)`/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
const dirDepth = (file: string) =>
  posix
    .dirname(file)
    .split('/')
    .filter((p) => p && p !== '.').length;

/** The outside reads of one file's text, as `file:line: why`. */
export function findOutsideReads(file: string, text: string): string[] {
  const found: string[] = [];
  const own = dirDepth(file);
  const vars = new Map<string, number>();
  const lines = text.split('\n');
  const shell = SHELL.test(file);
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    for (const [re, why] of OUTSIDE_LITERALS) if (re.test(line)) found.push(`${at}: ${why}`);
    const check = (depth: number, what: string) => {
      if (depth < 0) found.push(`${at}: ${what} climbs above the repository root`);
      return depth;
    };
    if (shell) {
      // `VAR=$(cd "<folder>" && pwd)` makes VAR a base for later `$VAR/..`.
      const assigned = /^\s*(?:export\s+|local\s+)?(\w+)=\$\(cd "\$/.exec(line)?.[1];
      for (const m of line.matchAll(/\$\(dirname "\$(?:0|\{BASH_SOURCE\[0\]\})"\)((?:\/\.\.)*)/g)) {
        const depth = check(depthAfter(own, [m[1]!]), 'the script folder plus ..');
        if (assigned && depth >= 0) vars.set(assigned, depth);
      }
      for (const m of line.matchAll(/\$\{?(\w+)\}?((?:\/\.\.)*)/g)) {
        const base = vars.get(m[1]!);
        if (base === undefined) continue;
        const depth = check(depthAfter(base, [m[2]!]), `$${m[1]}${m[2]}`);
        if (assigned && depth >= 0 && m.index === line.indexOf('"$') + 1) vars.set(assigned, depth);
      }
      return;
    }
    // A constant made from one resolution is a base for the next (`const ROOT = join(...)`).
    const assigned = /^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*=/.exec(line)?.[1];
    const bases = [OWN_DIR, ...[...vars.keys()].map((v) => `\\b${v}\\b`)].join('|');
    const call = new RegExp(String.raw`\b(?:resolve|join)\(\s*(${bases})\s*(${LITERALS})`, 'g');
    for (const m of line.matchAll(call)) {
      const depth = check(depthAfter(vars.get(m[1]!) ?? own, unquote(m[2]!)), m[0]);
      if (assigned && depth >= 0) vars.set(assigned, depth);
    }
    for (const m of line.matchAll(
      /new URL\(\s*(?:'([^']*)'|"([^"]*)"|`([^`$]*)`)\s*,\s*import\.meta\.url/g,
    )) {
      const depth = check(depthAfter(own, [m[1] ?? m[2] ?? m[3]!]), m[0]);
      if (assigned && depth >= 0) vars.set(assigned, depth);
    }
  });
  if (posix.basename(file) === 'package.json') found.push(...packageScripts(file, text, own));
  return found;
}

/** Relative paths in a package.json's scripts, which run in the package's folder. */
function packageScripts(file: string, text: string, own: number): string[] {
  let scripts: Record<string, string> = {};
  try {
    scripts = (JSON.parse(text) as { scripts?: Record<string, string> }).scripts ?? {};
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const [name, cmd] of Object.entries(scripts)) {
    for (const m of cmd.matchAll(/(?:^|[\s=])((?:\.\.\/)+)/g)) {
      if (depthAfter(own, [m[1]!]) < 0)
        found.push(`${file}: script "${name}" climbs above the repository root`);
    }
  }
  return found;
}

/** The repository's text files: tracked ones (and new ones not ignored) when git is there. */
export function repoTextFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return out
    .split('\n')
    .filter((f) => TEXT.test(f) || SHELL.test(f))
    .filter((f) => !f.endsWith('package-lock.json'));
}

/** Every outside read in the repository, except in the files `exempt` names. */
export function scanRepo(root: string, exempt: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const file of repoTextFiles(root)) {
    if (exempt.has(file)) continue;
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // listed by git but deleted in the working tree
    }
    found.push(...findOutsideReads(file, text));
  }
  return found;
}
