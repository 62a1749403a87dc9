// The web app's service worker: the offline shell of the installed app (the Downloads page says
// what it does). Navigations and the environment go to the network first and fall back to the
// last copy, so an offline start opens the app, which says it cannot reach the server; hashed
// assets and icons come from the cache once fetched (a new build has new names). Everything else
// (the API, the sign-in host, downloads) is left to the browser, untouched and never stored.
const CACHE = 'pm-shell-v1';
/** Hashed assets kept at most: older builds' files are dropped first. */
const MAX_ASSETS = 80;
const SHELL = ['/', '/environments.json', '/manifest.webmanifest', '/favicon.svg', '/icon-192.png'];
const NETWORK_FIRST = new Set(['/environments.json', '/legal.json']);
const CACHE_FIRST = /^\/(assets\/.+|icon-[\w-]+\.png|favicon\.svg|manifest\.webmanifest)$/;

/** The shell, and the entry's script and styles the index page names (their hashed names). */
async function precache() {
  const cache = await caches.open(CACHE);
  await cache.addAll(SHELL);
  const index = await cache.match('/');
  const html = index ? await index.text() : '';
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  await cache.addAll(assets);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** The network's answer, kept under `key` when it is one worth keeping; the kept one when offline. */
async function networkFirst(request, key, isKeepable) {
  const cache = await caches.open(CACHE);
  try {
    const answer = await fetch(request);
    if (answer.ok && isKeepable(answer)) await cache.put(key, answer.clone());
    return answer;
  } catch (e) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw e;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.ok) {
    await cache.put(request, answer.clone());
    const assets = (await cache.keys()).filter((r) => new URL(r.url).pathname.startsWith('/assets/'));
    await Promise.all(assets.slice(0, Math.max(0, assets.length - MAX_ASSETS)).map((r) => cache.delete(r)));
  }
  return answer;
}

/**
 * The scripts and styles a page has loaded (its `keep` message): the entry the index names loads the
 * app's chunks only after the sign-in (src/app/boot.ts), so the precache above never sees them, and an
 * offline start needs them to say that it is offline. Only this origin's hashed assets are kept.
 */
async function keep(urls) {
  const cache = await caches.open(CACHE);
  const assets = urls.filter((u) => {
    if (typeof u !== 'string' || !URL.canParse(u, self.location.origin)) return false;
    const url = new URL(u, self.location.origin);
    return url.origin === self.location.origin && /^\/assets\//.test(url.pathname);
  });
  for (const url of assets.slice(0, MAX_ASSETS)) {
    if (!(await cache.match(url))) await cache.add(url).catch(() => undefined);
  }
}

self.addEventListener('message', (event) => {
  if (event.data?.type === 'keep' && Array.isArray(event.data.urls)) event.waitUntil(keep(event.data.urls));
});

const isPage = (answer) => (answer.headers.get('content-type') ?? '').startsWith('text/html');

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // Every client route answers the same index page, kept as '/' (a download is not a page).
  if (request.mode === 'navigate') event.respondWith(networkFirst(request, '/', isPage));
  else if (NETWORK_FIRST.has(url.pathname))
    event.respondWith(networkFirst(request, url.pathname, () => true));
  else if (CACHE_FIRST.test(url.pathname)) event.respondWith(cacheFirst(request));
});
