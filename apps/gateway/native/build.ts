/**
 * Compiles the tunnel's AES-GCM record addon (`tunnel-aead.c`, N-API) with the machine's C compiler,
 * against the headers that ship with the Node binary running this script (N-API and the OpenSSL it
 * links). Runs from `npm install` (the root `postinstall`). Without a compiler, or when the build
 * fails, it says so and exits 0: tunnels then keep Node's TLS records (docs/gateway.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const here = import.meta.dirname;
// Node's own tarball layout (bin/node beside include/node), or the npm `node` package, whose binary
// comes from the platform package `node-<platform>-<arch>` next to or inside it.
const platformPackage = `node-${process.platform}-${process.arch}`;
const nodeRoot = path.join(path.dirname(process.execPath), '..');
const include =
  [
    path.join(nodeRoot, 'include', 'node'),
    path.join(nodeRoot, 'node_modules', platformPackage, 'include', 'node'),
    path.join(nodeRoot, '..', platformPackage, 'include', 'node'),
  ].find((dir) => existsSync(path.join(dir, 'node_api.h'))) ?? path.join(nodeRoot, 'include', 'node');
const out = path.join(here, 'build', 'tunnel-aead.node');
const cc = process.env.CC ?? 'cc';

function skip(why: string): never {
  console.warn(`tunnel-aead: not built (${why}); agent tunnels will use TLS records.`);
  process.exit(0);
}

if (!existsSync(path.join(include, 'node_api.h')) || !existsSync(path.join(include, 'openssl', 'evp.h'))) {
  skip(`no Node headers at ${include}`);
}
mkdirSync(path.dirname(out), { recursive: true });
try {
  execFileSync(
    cc,
    [
      '-O2',
      '-fPIC',
      '-shared',
      '-Wall',
      '-Werror',
      `-I${include}`,
      '-o',
      out,
      path.join(here, 'tunnel-aead.c'),
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
} catch (err) {
  skip(err instanceof Error ? err.message.split('\n')[0] : String(err));
}
console.log(`tunnel-aead: built ${path.relative(process.cwd(), out)}`);
