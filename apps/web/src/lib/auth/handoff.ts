/**
 * The spec's `?token=` hand-off (rules §6), bound to the tab that started it (issue 37): a
 * `?token=` is honoured only as the end of a hand-off this tab began. The tab keeps a random
 * state and a PKCE verifier (sessionStorage), goes to the sign-in host's `/handoff` with the state
 * and the verifier's S256 challenge, and comes back with `?token=<one-time code>&state=`; the code
 * is redeemed with the verifier for an access token. A link someone else crafted (their own token,
 * or a code bound to their verifier) carries nothing this tab can use, so it signs nobody in.
 */
import type { TEnvironment } from '@pm/contracts';
import * as oauth from 'oauth4webapi';
import { keepInTab, readInTab } from './tabStore.ts';
import type { HandoffReturn } from './token.ts';

const PENDING_KEY = 'pm.handoffPending';
/** A hand-off not back within this time is forgotten. */
const PENDING_TTL_MS = 10 * 60 * 1000;

interface Pending {
  state: string;
  verifier: string;
  startedAtMs: number;
}

/** The pending hand-off of this tab, removed as it is read (a state is good for one return). */
function takePending(): Pending | null {
  const p = readInTab<Pending>(PENDING_KEY, true);
  const fresh = typeof p?.startedAtMs === 'number' && Date.now() - p.startedAtMs < PENDING_TTL_MS;
  return fresh && typeof p?.state === 'string' && typeof p.verifier === 'string' ? (p as Pending) : null;
}

/**
 * Starts a hand-off: keeps a state and a verifier for this tab and sends the browser to the
 * sign-in host, which comes back to `returnPath` with a code for the user signed in there.
 */
export async function startHandoff(
  env: Pick<TEnvironment, 'issuer' | 'clientId'>,
  returnPath: string,
): Promise<void> {
  const pending: Pending = {
    state: oauth.generateRandomState(),
    verifier: oauth.generateRandomCodeVerifier(),
    startedAtMs: Date.now(),
  };
  keepInTab(PENDING_KEY, pending);
  const url = new URL(`${env.issuer.replace(/\/+$/, '')}/handoff`);
  url.search = new URLSearchParams({
    client_id: env.clientId,
    redirect_uri: new URL(returnPath, window.location.origin).href,
    state: pending.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
  }).toString();
  window.location.assign(url.href);
}

/**
 * The access token a hand-off's return brings, or null: only when its state is the one this tab
 * stored, and the sign-in host redeems the code for this tab's verifier. Anything else (no
 * pending hand-off, another state, a refused code) is dropped without a word.
 */
export async function finishHandoff(
  env: Pick<TEnvironment, 'issuer' | 'clientId'>,
  back: HandoffReturn,
): Promise<string | null> {
  if (!back.code && !back.error) return null;
  const pending = takePending();
  if (!back.code || !pending || back.state !== pending.state) return null;
  try {
    const res = await fetch(`${env.issuer.replace(/\/+$/, '')}/handoff/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: back.code, code_verifier: pending.verifier }),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { access_token?: unknown };
    return typeof body.access_token === 'string' ? body.access_token : null;
  } catch {
    return null;
  }
}
