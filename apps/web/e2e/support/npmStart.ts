import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The arguments `npm start` gives node (package.json's `start` script, its node flags and
 * scripts/start.ts), so what tests and benchmarks start is what a person starts.
 */
export function npmStartArgs(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [command, ...args] = scripts.start.trim().split(/\s+/);
  if (command !== 'node') throw new Error(`package.json's start script does not run node: ${scripts.start}`);
  return args;
}
