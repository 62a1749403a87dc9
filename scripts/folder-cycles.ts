/**
 * The import graph between the folders under one directory (for the web: apps/web/src/features/*)
 * and its cycles. A folder that imports another depends on it; two folders that import each other,
 * directly or through others, form a cycle: neither can change or be read without the other, so
 * shared code belongs in a library both import (apps/web/src/lib), not in one of them.
 * `folder-cycles.test.ts` holds the web's features to "no cycle".
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One import between two folders, with a file that makes it (for the message). */
export interface FolderEdge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

const SOURCE = /\.(?:ts|tsx|mts|js|jsx)$/;
/** `from '…'`, `import('…')` and a bare `import '…'`, once comments are gone. */
const SPECIFIER = /\bfrom\s*(['"])([^'"]+)\1|\bimport\s*\(\s*(['"])([^'"]+)\3|\bimport\s+(['"])([^'"]+)\5/g;

/**
 * The text with its comments blanked (strings kept), so an import written in a comment is none.
 * (TypeScript 7's compiler has no JavaScript API to ask instead.)
 */
export function withoutComments(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === quote) quote = null;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
    }
  }
  return out;
}

/** The module specifiers a source file imports. */
export function importSpecifiers(text: string): string[] {
  return [...withoutComments(text).matchAll(SPECIFIER)].map((m) => m[2] ?? m[4] ?? m[6] ?? '');
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

/**
 * Every relative import (static, `export … from`, dynamic `import()`, type-only too: a type shared
 * both ways ties the folders as much as a value does) from a file in one top folder of `root` to a
 * file in another.
 */
export function folderEdges(root: string): FolderEdge[] {
  const edges: FolderEdge[] = [];
  for (const file of sourceFiles(root)) {
    const from = relative(root, file).split(sep)[0];
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), specifier));
      if (target.startsWith('..') || !target.includes(sep)) continue;
      const to = target.split(sep)[0];
      if (from && to && to !== from) edges.push({ from, to, file: relative(root, file), specifier });
    }
  }
  return edges;
}

/**
 * The cycles of the folder graph: each strongly connected group of two or more folders (Tarjan),
 * with the edges inside it, so a failure names the files to change.
 */
export function folderCycles(edges: readonly FolderEdge[]): { folders: string[]; edges: FolderEdge[] }[] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)?.add(e.to);
    if (!next.has(e.to)) next.set(e.to, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) ?? 0);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((folders) => ({
    folders,
    edges: edges.filter((e) => folders.includes(e.from) && folders.includes(e.to)),
  }));
}

/** A cycle as a readable paragraph: the folders, then each import inside it. */
export function describeCycle(cycle: { folders: string[]; edges: FolderEdge[] }): string {
  const lines = cycle.edges.map((e) => `  ${e.from} -> ${e.to}: ${e.file} imports '${e.specifier}'`);
  return [`cycle between ${cycle.folders.join(', ')}:`, ...lines].join('\n');
}
