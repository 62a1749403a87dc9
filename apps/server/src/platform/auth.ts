import { API_KEY_PREFIX, AppError, isStaff } from '@pm/contracts';
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import type { OidcConfig } from './config.ts';

/** Who is calling, from a verified access token. */
export interface Principal {
  /** Token `sub`: the account's user id. */
  userId: string;
  /** `email` claim, '' when absent (used only when the account is created). */
  email: string;
  /** `referral_code` claim (or a namespaced `…/referral_code`), used only when the account is created. */
  refcode: string | null;
  /** `referred_by` claim (or `…/referred_by`): the inviter's referral code, used only when the account is created. */
  referredBy?: string | null | undefined;
  /** From the configured permissions claim. */
  permissions: string[];
  /** Holds both read:users and update:accounts. */
  isStaff: boolean;
  /** The token's `iat` in ms; undefined for an API key (not a session: only a block stops it). */
  issuedAtMs?: number | undefined;
  /**
   * The `email_verified` claim (or `…/email_verified`): true once the sign-in host confirmed the
   * address; undefined without the claim (an API key, or an issuer that leaves it out).
   */
  emailVerified?: boolean | undefined;
}

/**
 * Per-route access level, set as `config: { auth }`; routes without it need a signed-in, unblocked user.
 * `api` (the public API under `/api`): a bearer token or one of the customer's API keys; 403 without either.
 */
export type AuthLevel = 'public' | 'user' | 'staff' | 'api';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export interface TokenVerifier {
  /** Verifies a bearer token; throws UNAUTHENTICATED (bad token) or UNAVAILABLE (issuer unreachable). */
  verify(token: string): Promise<Principal>;
}

const DISCOVERY_TIMEOUT_MS = 5000;
/** Longest a verified token is reused without checking its signature again, and how many are kept. */
const VERIFIED_TOKEN_TTL_MS = 60_000;
const MAX_VERIFIED_TOKENS = 10_000;
const JOSE_UNAVAILABLE = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);
/**
 * The JWS header type every access token must carry (RFC 9068 section 4): an ID token, a logout
 * token or any other JWT the issuer signs with the same key is not an access token.
 * jose compares it case-insensitively, with or without the `application/` prefix.
 */
export const ACCESS_TOKEN_TYP = 'at+jwt';

/** Reads a claim by exact name first (namespaced claims contain dots), then as a dotted path. */
function readClaim(payload: JWTPayload, name: string): unknown {
  if (name in payload) return payload[name];
  let cur: unknown = payload;
  for (const part of name.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function readPermissions(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** A short code claim by name, or by a namespaced name ending in `/<name>` (Auth0 custom claims). */
function readCodeClaim(payload: JWTPayload, name: string): string | null {
  const key = name in payload ? name : Object.keys(payload).find((k) => k.endsWith(`/${name}`));
  const v = key ? payload[key] : undefined;
  return typeof v === 'string' && v.length > 0 && v.length <= 64 ? v : null;
}

/** A boolean claim by name, or by a namespaced name ending in `/<name>`; undefined when absent or not a boolean. */
function readFlagClaim(payload: JWTPayload, name: string): boolean | undefined {
  const key = name in payload ? name : Object.keys(payload).find((k) => k.endsWith(`/${name}`));
  const v = key ? payload[key] : undefined;
  return typeof v === 'boolean' ? v : undefined;
}

/** Maps a jose or fetch failure to 401 (the token is bad) or 503 (we could not get the keys). */
function toAuthError(e: unknown): AppError {
  const code = (e as { code?: unknown })?.code;
  const message = e instanceof Error ? e.message : String(e);
  const isJose = typeof code === 'string' && code.startsWith('ERR_J');
  if (!isJose || JOSE_UNAVAILABLE.has(code) || /JSON Web Key Set HTTP response/.test(message)) {
    return new AppError('UNAVAILABLE', { message: `cannot get signing keys: ${message}`, cause: e });
  }
  return new AppError('UNAUTHENTICATED', { message: `token rejected: ${code} ${message}` });
}

/** Reads `jwks_uri` from the issuer's discovery document; its `issuer` must match exactly. */
async function discoverJwksUri(issuer: string): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`discovery ${url} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer)
    throw new Error(`discovery issuer ${String(doc.issuer)} does not match ${issuer}`);
  if (typeof doc.jwks_uri !== 'string') throw new Error('discovery document has no jwks_uri');
  return doc.jwks_uri;
}

/**
 * Checks access tokens with jose against the issuer's JWKS, pinning issuer, audience,
 * algorithms and the `at+jwt` header type. Discovery (when no jwksUri is configured) happens on first use and is retried
 * on the next request after a failure. `now` is the clock of expiry (tests move it instead of waiting).
 */
export function createTokenVerifier(oidc: OidcConfig, now: () => number = Date.now): TokenVerifier {
  let keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;
  const getKeys = () => {
    if (!keys) {
      const pending = (async () =>
        createRemoteJWKSet(new URL(oidc.jwksUri ?? (await discoverJwksUri(oidc.issuer))), {
          timeoutDuration: DISCOVERY_TIMEOUT_MS,
        }))();
      keys = pending;
      // A failed discovery is forgotten, so the next request tries again.
      pending.catch(() => {
        if (keys === pending) keys = undefined;
      });
    }
    return keys;
  };

  // Verified tokens, so a client's every request does not pay for a signature check (the ECDSA
  // verify is most of a small route's cost). Keyed by the exact token; kept until it expires, at
  // most VERIFIED_TOKEN_TTL_MS (a JWKS key withdrawn by the issuer stops working within that).
  const verified = new Map<string, { principal: Principal; untilMs: number }>();

  return {
    async verify(token) {
      const hit = verified.get(token);
      if (hit && hit.untilMs > now()) return hit.principal;
      const principal = await verifyToken(token);
      const untilMs = Math.min(
        now() + VERIFIED_TOKEN_TTL_MS,
        principal.expiresAtMs ?? Number.POSITIVE_INFINITY,
      );
      if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value as string);
      verified.set(token, { principal: principal.value, untilMs });
      return principal.value;
    },
  };

  /** Checks a token's signature and claims; the Principal and when the token expires. */
  async function verifyToken(token: string): Promise<{ value: Principal; expiresAtMs: number | undefined }> {
    let jwks: ReturnType<typeof createRemoteJWKSet>;
    try {
      jwks = await getKeys();
    } catch (e) {
      throw new AppError('UNAVAILABLE', {
        message: `OIDC discovery failed: ${(e as Error).message}`,
        cause: e,
      });
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: oidc.issuer,
        audience: oidc.audience,
        algorithms: oidc.algorithms,
        typ: ACCESS_TOKEN_TYP,
        currentDate: new Date(now()),
      }));
    } catch (e) {
      throw toAuthError(e);
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 200) {
      throw new AppError('UNAUTHENTICATED', { message: 'token has no usable sub' });
    }
    const permissions = readPermissions(readClaim(payload, oidc.permissionsClaim));
    return {
      value: {
        userId: payload.sub,
        email: typeof payload.email === 'string' ? payload.email : '',
        refcode: readCodeClaim(payload, 'referral_code'),
        referredBy: readCodeClaim(payload, 'referred_by'),
        permissions,
        isStaff: isStaff(permissions),
        issuedAtMs: typeof payload.iat === 'number' ? payload.iat * 1000 : undefined,
        emailVerified: readFlagClaim(payload, 'email_verified'),
      },
      expiresAtMs: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined,
    };
  }
}

/** An account's block flag, the time before which its tokens are refused (0: none) and its confirmed address. */
export interface AccountAccessState {
  blocked: boolean;
  tokensValidAfterMs: number;
  /** Whether the stored account has its address confirmed (undefined without an account). */
  emailVerified?: boolean | undefined;
}

export interface AuthHookDeps {
  verifier: TokenVerifier;
  /** The account's block flag and tokens-valid-after time (not blocked and 0 without an account). */
  getAccess(userId: string): Promise<AccountAccessState>;
  /** How long a "not blocked" answer (with its valid-after time) may be reused; 0 reads it on every request. */
  blockCacheMs: number;
  /** Resolves an API key (`pmk_…`) to its owner, or null when unknown or revoked (`api` routes only). */
  resolveApiKey?(key: string): Promise<Principal | null>;
  /**
   * Records on the account that its address is confirmed, when a verified token says so and the
   * stored account does not yet (the sale path reads the account, not the token). True when an
   * account was marked.
   */
  confirmEmail?(userId: string): Promise<boolean>;
}

const MAX_CACHED_USERS = 10_000;

/**
 * The onRequest hook that authenticates every route unless its config says `auth: 'public'`:
 * bearer token -> Principal, refuses blocked accounts, and staff routes for non-staff.
 */
export function createAuthHook(deps: AuthHookDeps): onRequestAsyncHookHandler {
  const cached = new Map<string, { state: AccountAccessState; untilMs: number; confirmTried?: boolean }>();
  // One read per user at a time: a caller's parallel requests share it (one round trip, not N).
  const reading = new Map<string, Promise<AccountAccessState>>();

  async function readAccess(userId: string): Promise<AccountAccessState> {
    const now = Date.now();
    const hit = cached.get(userId);
    if (hit && hit.untilMs > now) return hit.state;
    const running = reading.get(userId);
    if (running) return running;
    const read = deps.getAccess(userId).finally(() => reading.delete(userId));
    reading.set(userId, read);
    const state = await read;
    if (state.blocked || deps.blockCacheMs <= 0) {
      cached.delete(userId);
      return state;
    }
    if (cached.size >= MAX_CACHED_USERS) cached.clear();
    cached.set(userId, { state, untilMs: now + deps.blockCacheMs });
    return state;
  }

  /**
   * Refuses a blocked account (403, API keys too) and a token issued before the account's
   * tokens-valid-after second (401: a password change or reset, a block or a two-factor change
   * ended it; the web app signs in again). Both are read at most `blockCacheMs` late.
   */
  async function assertAccess(principal: Principal): Promise<AccountAccessState> {
    const state = await readAccess(principal.userId);
    if (state.blocked) {
      throw new AppError('FORBIDDEN', {
        message: `blocked account ${principal.userId}`,
        userMessage: 'Account blocked',
      });
    }
    if (
      principal.issuedAtMs !== undefined &&
      isIssuedBefore(principal.issuedAtMs, state.tokensValidAfterMs)
    ) {
      throw new AppError('UNAUTHENTICATED', {
        message: `token of ${principal.userId} issued before its account's tokens-valid-after time`,
      });
    }
    return state;
  }

  /**
   * The sign-in host confirms an address after the account exists: the first token that says so
   * marks the account (once), so every later sale, API keys' too, finds it confirmed.
   */
  async function syncConfirmedEmail(principal: Principal, state: AccountAccessState): Promise<void> {
    if (principal.emailVerified !== true || state.emailVerified === true || !deps.confirmEmail) return;
    const entry = cached.get(principal.userId);
    // Read without a stored account (`undefined`), there may be nothing to mark: tried once per
    // cached read, not on every request (each try is an UPDATE and then an uncached account read).
    if (state.emailVerified === undefined && entry?.confirmTried) return;
    const marked = await deps.confirmEmail(principal.userId);
    if (marked || state.emailVerified === false) cached.delete(principal.userId);
    else if (entry) entry.confirmTried = true;
  }

  /** An API key on an `/api` route, else a JWT access token (an API key anywhere else is refused as one). */
  async function verifyBearer(token: string, level: AuthLevel): Promise<Principal> {
    if (level !== 'api' || !token.startsWith(API_KEY_PREFIX) || !deps.resolveApiKey) {
      return deps.verifier.verify(token);
    }
    const principal = await deps.resolveApiKey(token);
    if (!principal) throw new AppError('UNAUTHENTICATED', { message: 'unknown or revoked API key' });
    return principal;
  }

  return async function authenticate(req) {
    req.principal = null;
    const level = req.routeOptions.config?.auth ?? 'user';
    // CORS preflights and unknown routes need no token (the 404 says nothing about accounts).
    if (req.method === 'OPTIONS' || req.is404 || level === 'public') return;
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +([\w.~+/=-]{1,8192})\s*$/i.exec(header) : null;
    if (!match?.[1]) {
      // Rules §7: the public API answers 403 to a call without a bearer authorization header.
      if (level === 'api')
        throw new AppError('FORBIDDEN', { message: 'no bearer token', userMessage: 'Bearer token required' });
      throw new AppError('UNAUTHENTICATED', { message: 'no bearer token' });
    }
    const principal = await verifyBearer(match[1], level);
    const state = await assertAccess(principal);
    await syncConfirmedEmail(principal, state);
    if (level === 'staff' && !principal.isStaff) {
      throw new AppError('FORBIDDEN', {
        message: `${principal.userId} is not staff`,
        userMessage: 'Staff permissions required',
      });
    }
    req.principal = principal;
  };
}

/**
 * True when a token issued at `issuedAtMs` (its `iat`, whole seconds) predates `validAfterMs`:
 * compared by the second, as the identity host's admin API does, since `iat` has no finer grain.
 */
export function isIssuedBefore(issuedAtMs: number, validAfterMs: number): boolean {
  return issuedAtMs < Math.floor(validAfterMs / 1000) * 1000;
}

/** The caller of an authenticated route (throws UNAUTHENTICATED on a public one). */
export function getPrincipal(req: FastifyRequest): Principal {
  if (!req.principal) throw new AppError('UNAUTHENTICATED', { message: 'route has no principal' });
  return req.principal;
}
