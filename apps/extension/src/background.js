// The add-on's service worker: sign-in (OAuth code + PKCE through the identity host), the
// customer's leases, and the browser's proxy. The popup talks to it with runtime messages.
import {
  authorizeUrl,
  codeFromRedirect,
  createPkce,
  pickEnvironment,
  proxyConfig,
  redirectUri,
  withAddress,
} from './lib.js';

const EXT_ID = chrome.runtime.id;
const get = async (key) => (await chrome.storage.local.get(key))[key];
const set = (values) => chrome.storage.local.set(values);

async function readJson(res, what) {
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${what}: ${body?.message ?? body?.error_description ?? res.status}`);
  return body;
}

async function saveTokens(body) {
  await set({
    tokens: {
      access: body.access_token,
      refresh: body.refresh_token ?? null,
      expiresAtMs: Date.now() + (body.expires_in ?? 300) * 1000,
    },
  });
}

/** A valid access token, refreshed when it is about to expire; null when signed out. */
async function accessToken() {
  const tokens = await get('tokens');
  if (!tokens) return null;
  if (tokens.expiresAtMs - Date.now() > 30_000) return tokens.access;
  const env = await get('env');
  if (!tokens.refresh || !env) return null;
  const res = await fetch(`${env.issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh,
      client_id: env.clientId,
    }),
  });
  if (!res.ok) {
    await chrome.storage.local.remove('tokens');
    return null;
  }
  await saveTokens(await res.json());
  return (await get('tokens')).access;
}

async function api(method, path, body) {
  const env = await get('env');
  const token = await accessToken();
  if (!env || !token) throw new Error('Sign in first');
  const res = await fetch(`${env.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return readJson(res, `${method} ${path}`);
}

async function signIn(siteUrl) {
  const file = await readJson(await fetch(new URL('/environments.json', siteUrl)), 'environments');
  const env = pickEnvironment(file, siteUrl);
  const pkce = await createPkce();
  await set({ siteUrl, env, pending: { verifier: pkce.verifier, state: pkce.state } });
  await chrome.tabs.create({ url: authorizeUrl(env, pkce, EXT_ID) });
}

/**
 * The identity host sent the browser to our redirect URI: trade the code for tokens, close the tab.
 * The tab reports the redirect more than once (the address, then Chromium's error page for a host
 * that does not exist); the first report takes the code and closes the tab, a later one closes
 * what is left.
 */
let finishing = null;
async function finishSignIn(tabId, url) {
  const pending = await get('pending');
  if (pending && finishing === pending.state) return;
  if (!pending) return closeTab(tabId);
  finishing = pending.state;
  // The tab goes at once, while its id is still the one seen here; the code is in `url` already.
  const closing = closeTab(tabId);
  try {
    await redeemCode(pending, url);
  } catch (e) {
    await set({ pending: null, lastError: String(e?.message ?? e) });
  } finally {
    finishing = null;
  }
  await closing;
}

async function redeemCode(pending, url) {
  const code = codeFromRedirect(url, EXT_ID, pending.state);
  if (!code) return;
  await set({ pending: null });
  const env = await get('env');
  const res = await fetch(`${env.issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(EXT_ID),
      client_id: env.clientId,
      code_verifier: pending.verifier,
    }),
  });
  await saveTokens(await readJson(res, 'sign-in'));
  await set({ lastError: null });
}

/** Tabs Chromium swapped for another: the redirect's error page can come under a new tab id. */
const replacedBy = new Map();
chrome.tabs.onReplaced.addListener((added, removed) => replacedBy.set(removed, added));

/**
 * Closes the sign-in tab: the one the redirect was seen in, or what Chromium replaced it with, or any
 * tab still at our redirect URI (there is nothing to show there). A tab in the middle of a
 * navigation cannot be edited for a moment, so it tries again for up to two seconds.
 */
async function closeTab(tabId) {
  for (let attempt = 0; attempt < 10; attempt++) {
    let id = tabId;
    while (replacedBy.has(id)) id = replacedBy.get(id);
    const left = await chrome.tabs.query({ url: `${redirectUri(EXT_ID)}*` }).catch(() => []);
    const ids = [...new Set([id, ...left.map((t) => t.id)])];
    const closed = await Promise.allSettled(ids.map((i) => chrome.tabs.remove(i)));
    if (closed.some((r) => r.status === 'fulfilled')) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  const url = change.url ?? tab.url ?? '';
  if (url.startsWith(redirectUri(EXT_ID))) void finishSignIn(tabId, url);
});

async function listLeases() {
  const leases = [];
  let cursor = 0;
  for (let page = 0; page < 20; page++) {
    const body = await api('GET', `/leases?cursor=${cursor}`);
    leases.push(...body.leases);
    cursor = body.cursor;
    if (cursor === 0) break;
  }
  return leases;
}

/** Adds this browser's address to the lease's no-auth whitelist and points the browser at that port. */
async function applyLease(leaseId) {
  const leases = await listLeases();
  const lease = leases.find((l) => l.id === leaseId);
  if (!lease) throw new Error('That lease is no longer active');
  const { ip } = await api('GET', '/myip');
  const created = await api('POST', `/authport/create/${encodeURIComponent(leaseId)}`, {
    whitelist: withAddress(lease.authPort?.whitelist, ip),
  });
  const authPort = created.authPort;
  await chrome.proxy.settings.set({
    value: proxyConfig(authPort, await get('env'), (await get('throughLoopback')) === true),
    scope: 'regular',
  });
  const applied = { leaseId, node: authPort.node, port: authPort.port, ip };
  await set({ applied });
  return applied;
}

async function status() {
  const { siteUrl, tokens, applied, lastError, pending } = await chrome.storage.local.get([
    'siteUrl',
    'tokens',
    'applied',
    'lastError',
    'pending',
  ]);
  return {
    siteUrl: siteUrl ?? null,
    signedIn: Boolean(tokens),
    signingIn: Boolean(pending),
    applied: applied ?? null,
    lastError: lastError ?? null,
  };
}

const HANDLERS = {
  status: () => status(),
  signIn: (m) => signIn(m.siteUrl),
  signOut: async () => {
    await chrome.proxy.settings.clear({ scope: 'regular' });
    await chrome.storage.local.remove(['tokens', 'applied']);
  },
  leases: () => listLeases(),
  apply: (m) => applyLease(m.leaseId),
  clear: async () => {
    await chrome.proxy.settings.clear({ scope: 'regular' });
    await chrome.storage.local.remove('applied');
  },
  setThroughLoopback: (m) => set({ throughLoopback: m.value === true }),
};

chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  const handler = HANDLERS[message?.type];
  if (!handler) return false;
  handler(message).then(
    (result) => reply({ ok: true, result }),
    (e) => reply({ ok: false, error: String(e?.message ?? e) }),
  );
  return true;
});
