/** Where the built app's service worker is served (apps/web/public/sw.js). */
export const SERVICE_WORKER_URL = '/sw.js';

/**
 * Registers the service worker that makes the app installable with an offline shell, in built
 * apps only (the dev server's modules change on every edit) and once the page has loaded, so it
 * never competes with the first render. A browser without service workers just skips it.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register(SERVICE_WORKER_URL).catch((e: unknown) => {
      console.warn('service worker not registered', e);
    });
    // The app's chunks were fetched after the sign-in, before the worker ran: it keeps them for an
    // offline start (sw.js, `keep`), from the HTTP cache since they are immutable.
    void navigator.serviceWorker.ready.then((registration) => {
      const loaded = performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((name) => new URL(name).origin === window.location.origin);
      registration.active?.postMessage({ type: 'keep', urls: loaded });
    });
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}

/** Chromium's install prompt event (not in TypeScript's DOM types). */
interface InstallPromptEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: 'accepted' | 'dismissed' }>;
}

let deferredPrompt: InstallPromptEvent | null = null;
const promptListeners = new Set<() => void>();
const notify = () => {
  for (const l of promptListeners) l();
};

/**
 * Keeps Chromium's install prompt for the Downloads page's Install button: the event fires once,
 * early, whatever page is open, so it is caught here at start rather than by the page.
 */
export function watchInstallPrompt(): void {
  if (typeof window === 'undefined') return;
  window.addEventListener('beforeinstallprompt', (e) => {
    e.preventDefault();
    deferredPrompt = e as InstallPromptEvent;
    notify();
  });
  window.addEventListener('appinstalled', () => {
    deferredPrompt = null;
    notify();
  });
}

/** For useSyncExternalStore: whether the browser offers to install the app now. */
export const installPromptStore = {
  subscribe(listener: () => void): () => void {
    promptListeners.add(listener);
    return () => promptListeners.delete(listener);
  },
  canInstall: (): boolean => deferredPrompt !== null,
  /** Shows the browser's install dialog; true when the visitor accepted. */
  async install(): Promise<boolean> {
    const e = deferredPrompt;
    if (!e) return false;
    deferredPrompt = null;
    notify();
    await e.prompt();
    return (await e.userChoice).outcome === 'accepted';
  },
};

/** True when the page runs as the installed app (its own window, no browser bar). */
export function isInstalledApp(): boolean {
  return typeof window !== 'undefined' && window.matchMedia('(display-mode: standalone)').matches;
}
