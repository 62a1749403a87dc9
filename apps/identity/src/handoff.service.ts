import { createHash, randomBytes } from 'node:crypto';
import { AppError, type THandoffRedeemBody, type THandoffToken } from '@pm/contracts';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { apiResourceServer } from './provider.ts';
import type { UsersRepository } from './users.repository.ts';

/** A hand-off code is redeemed within this time or not at all. */
export const HANDOFF_CODE_TTL_MS = 60 * 1000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE = /^[A-Za-z0-9_-]{16,128}$/;
const INVALID = 'The hand-off code is invalid, used or expired.';

export interface HandoffDeps {
  provider: Provider;
  repo: UsersRepository;
  webClient: { clientId: string; redirectUris: string[] };
  apiAudience: string;
  accessTokenTtlSeconds: number;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/**
 * The spec's `?token=` hand-off, bound to the browser tab that started it (issue 37): the tab
 * keeps a state and a PKCE verifier and comes here with the state and the verifier's S256
 * challenge; a browser signed in at this host goes back with `?token=<one-time code>&state=`, and
 * the tab redeems the code with its verifier (`POST /handoff/token`) for an access token. A link
 * crafted by someone else carries a state that tab never stored, or a code bound to a verifier it
 * does not hold: it signs nobody in.
 */
export function createHandoffService(d: HandoffDeps) {
  const resourceServer = apiResourceServer(d.apiAudience, d.accessTokenTtlSeconds);
  const appOrigins = new Set(d.webClient.redirectUris.map((u) => new URL(u).origin));

  /** The web app's address to return to: one of its own origins, never another site. */
  function returnUrl(raw: unknown): URL | undefined {
    if (typeof raw !== 'string' || raw.length > 2000) return undefined;
    try {
      const url = new URL(raw);
      return appOrigins.has(url.origin) ? url : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    /**
     * `GET /handoff?client_id&redirect_uri&state&code_challenge&code_challenge_method=S256`: where
     * the browser goes back to (303), with a one-time code for the user of this browser's sign-in
     * session, or `handoff_error=login_required` without one. Undefined for a request that names
     * no address of the web app (the caller answers 400, redirecting nowhere).
     */
    async start(ctx: Context): Promise<string | undefined> {
      const q = ctx.query;
      const back = returnUrl(q.redirect_uri);
      if (!back || q.client_id !== d.webClient.clientId) return undefined;
      const state = typeof q.state === 'string' && STATE.test(q.state) ? q.state : '';
      const challenge = typeof q.code_challenge === 'string' ? q.code_challenge : '';
      back.searchParams.set('state', state);
      if (!state || !CHALLENGE.test(challenge) || q.code_challenge_method !== 'S256') {
        back.searchParams.set('handoff_error', 'invalid_request');
        return back.href;
      }
      const session = await d.provider.Session.get(ctx);
      const user = session.accountId ? await d.repo.findById(session.accountId) : undefined;
      if (!user || user.blocked) {
        back.searchParams.set('handoff_error', 'login_required');
        return back.href;
      }
      const code = randomBytes(32).toString('base64url');
      await d.repo.insertHandoffCode({
        codeHash: sha256(code).toString('hex'),
        userId: user.id,
        challenge,
        expiresAt: new Date(Date.now() + HANDOFF_CODE_TTL_MS),
      });
      back.searchParams.set('token', code);
      return back.href;
    },

    /** Redeems a code once with the verifier whose S256 is its challenge: a fresh access token. */
    async redeem(body: THandoffRedeemBody): Promise<THandoffToken> {
      const found = await d.repo.consumeHandoffCode(sha256(body.code).toString('hex'));
      const expected = found ? Buffer.from(found.challenge) : Buffer.alloc(0);
      const given = Buffer.from(sha256(body.code_verifier).toString('base64url'));
      if (!found || expected.length !== given.length || !expected.equals(given)) {
        throw new AppError('VALIDATION_FAILED', { message: 'handoff code refused', userMessage: INVALID });
      }
      const user = await d.repo.findById(found.userId);
      if (!user || user.blocked) throw new AppError('VALIDATION_FAILED', { userMessage: INVALID });
      const client = await d.provider.Client.find(d.webClient.clientId);
      if (!client) throw new AppError('INTERNAL', { message: 'web client missing' });
      const grant = new d.provider.Grant({ accountId: user.id, clientId: client.clientId });
      grant.addResourceScope(d.apiAudience, 'api');
      const grantId = await grant.save();
      const at = new d.provider.AccessToken({ accountId: user.id, client, grantId, gty: 'handoff' });
      at.resourceServer = new d.provider.ResourceServer(d.apiAudience, resourceServer);
      at.scope = '';
      const accessToken = await at.save();
      return { access_token: accessToken, token_type: 'Bearer', expires_in: at.expiration };
    },
  };
}

export type HandoffService = ReturnType<typeof createHandoffService>;
