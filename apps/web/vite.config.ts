import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Text files the web listener sends precompressed; smaller ones go as they are (a header costs more). */
const COMPRESSED_TYPES = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt']);
const MIN_COMPRESS_BYTES = 1024;

/**
 * Writes `name.br` (brotli, quality 11) and `name.gz` (gzip, level 9) beside every text file of the
 * build, once, so the server's web listener (`preCompressed`) never compresses per request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return {
    name: 'pm-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    closeBundle() {
      for (const file of walk(outDir)) {
        if (!COMPRESSED_TYPES.has(extname(file))) continue;
        const body = readFileSync(file);
        if (body.length < MIN_COMPRESS_BYTES) continue;
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, {
            params: {
              [constants.BROTLI_PARAM_QUALITY]: 11,
              [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
            },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

// The app is served under a CSP with `script-src 'self'`: Vite emits only external module scripts,
// and the module preload polyfill is bundled into the entry chunk rather than inlined.
export default defineConfig({
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // The parts of Material UI, Emotion and TanStack Query that ten or more chunks share go in
        // one chunk: left to the automatic splitting they were 30-60 small files per screen, each
        // compressed alone (/my 90 scripts). One file compresses better and is cached for every
        // screen after the first (docs/benchmarks.md, "Web app first visit").
        codeSplitting: {
          groups: [{ name: 'ui', test: /node_modules[\\/](@mui|@emotion|@tanstack)/, minShareCount: 10 }],
        },
      },
    },
  },
  server: { host: '127.0.0.1' },
});
