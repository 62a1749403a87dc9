// The add-on's rules, free of chrome.* so Node tests them (lib.test.ts).

/** The redirect URI the identity host sends the code to (registered as one of the web client's). */
export const redirectUri = (extensionId) => `https://${extensionId}.chromiumapp.org/`;

const b64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

/** A PKCE pair (RFC 7636, S256) and a state value. */
export async function createPkce() {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  return { verifier, challenge, state };
}

/** The site's environment: the entry of its /environments.json whose origins include the site. */
export function pickEnvironment(file, siteUrl) {
  const origin = new URL(siteUrl).origin;
  const env = (file?.environments ?? []).find((e) => Array.isArray(e.origins) && e.origins.includes(origin));
  if (!env) throw new Error(`${origin} is not a ProxyMarket site`);
  return {
    apiUrl: env.apiUrl.replace(/\/+$/, ''),
    issuer: env.issuer.replace(/\/+$/, ''),
    clientId: env.clientId,
    audience: env.audience,
  };
}

/** The authorization request (code flow, PKCE S256, the market API as the resource). */
export function authorizeUrl(env, pkce, extensionId) {
  const url = new URL(`${env.issuer}/auth`);
  url.search = new URLSearchParams({
    client_id: env.clientId,
    response_type: 'code',
    redirect_uri: redirectUri(extensionId),
    scope: 'openid email',
    resource: env.audience,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state: pkce.state,
  }).toString();
  return url.toString();
}

/** The code from the redirect, when it answers our request (same state); throws on an error answer. */
export function codeFromRedirect(url, extensionId, state) {
  if (!url.startsWith(redirectUri(extensionId))) return null;
  const params = new URL(url).searchParams;
  if (params.get('state') !== state) throw new Error('sign-in answer for another request');
  const error = params.get('error');
  if (error) throw new Error(params.get('error_description') ?? error);
  return params.get('code');
}

/** The whitelist with `ip` added (kept as it is when already there), as the API takes it. */
export function withAddress(whitelist, ip) {
  const entries = (whitelist ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.includes(ip) ? entries.join(',') : [...entries, ip].join(',');
}

/**
 * chrome.proxy settings for a lease's no-auth port. The product's own API and sign-in hosts stay
 * direct (`env`): the whitelist must keep holding the browser's own address, which the API reports.
 * `throughLoopback` also proxies loopback addresses (Chromium bypasses them by default): a
 * developer setting for local stacks.
 */
export function proxyConfig(authPort, env, throughLoopback = false) {
  const own = env ? [...new Set([new URL(env.apiUrl).host, new URL(env.issuer).host])] : [];
  return {
    mode: 'fixed_servers',
    rules: {
      singleProxy: { scheme: 'socks5', host: authPort.node, port: authPort.port },
      // Chromium reads the list from its end, so the own hosts win over `<-loopback>`.
      bypassList: [...(throughLoopback ? ['<-loopback>'] : []), ...own],
    },
  };
}

/** One line per lease for the list: address, place and time left. */
export function leaseLabel(lease, nowMs = Date.now()) {
  const loc = lease.currentInfo?.loc ?? lease.info?.loc ?? {};
  const leftH = Math.max(0, Math.floor((Date.parse(lease.until) - nowMs) / 3_600_000));
  const place = [loc.city, loc.cc].filter(Boolean).join(', ');
  return `${lease.currentInfo?.ip ?? lease.info?.ip ?? lease.id}${place ? ` · ${place}` : ''} · ${leftH} h left`;
}
