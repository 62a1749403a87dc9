import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app is served under a CSP with `script-src 'self'`: Vite emits only external module scripts,
// and the module preload polyfill is bundled into the entry chunk rather than inlined.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    modulePreload: { polyfill: false },
  },
  server: { host: '127.0.0.1' },
});
