/**
 * The page's first script: the environment and the sign-in (app/boot.ts), then the app. Nothing here
 * imports React or Material UI, so a page that is sent to the sign-in host at once has fetched only
 * this small chunk and the sign-in library; the app's chunk is fetched when there is something to show.
 */
import { boot } from './app/boot.ts';
import { firstScreenPath, mayStaySignedIn } from './lib/auth/session.ts';
import { watchInstallPrompt } from './lib/pwa.ts';

// The app's code with its first screen and top bar, so the first render suspends nowhere.
const loadApp = (path: string) =>
  import('./app/start.tsx').then(async (app) => {
    await app.preloadScreen(path);
    return app;
  });

watchInstallPrompt();
// Where the sign-in can finish on this page, the app's code is fetched alongside it, not after it.
const app = mayStaySignedIn() ? loadApp(firstScreenPath()) : null;
void boot().then(async (result) => {
  if (!result) return;
  const { startApp } = await (app ?? loadApp(window.location.pathname));
  startApp(result);
});
