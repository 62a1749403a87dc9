import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { registerServiceWorker } from '../lib/pwa.ts';
import { App } from './App.tsx';
import type { Boot } from './boot.ts';

export { preloadScreen } from './router.tsx';

/** Renders the app for a settled boot, then registers the service worker (never before the first render). */
export function startApp(boot: Boot): void {
  const root = document.getElementById('root');
  if (!root) throw new Error('#root element is missing from index.html');
  createRoot(root).render(
    <StrictMode>
      <App boot={boot} />
    </StrictMode>,
  );
  registerServiceWorker();
}
