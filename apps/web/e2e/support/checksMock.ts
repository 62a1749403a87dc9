/**
 * The mock market's checks (rules §7): `GET /agents/{id}/speedcheck[?request=true]` (404 until a test
 * was asked; a test is `checking` on the first look and done at 42.5 Mbps after) and the score
 * check quote and purchase (`POST`/`PATCH /agents/scorecheck`), which sets the agent's score check.
 */
import type { TAccount, TAgent, TScoreCheck, TSpeedCheck } from '@pm/contracts';
import { type Cents, cents } from '@pm/money';
import type { MockAnswer } from './marketMock.ts';

export const MOCK_SCORE_PRICE_C = 25;

/** The checks' state of one mock market. */
export interface ChecksMock {
  speed: Map<string, { check: TSpeedCheck; looks: number }>;
  tokens: Set<string>;
  /** Status the next `PATCH /agents/scorecheck` answers with instead of a check (e.g. 429). */
  scoreStatus: number;
  /** Agents whose speed tests fail (the proxy did not answer through the gateway). */
  speedFails: Set<string>;
}

export const createChecksMock = (): ChecksMock => ({
  speed: new Map(),
  tokens: new Set(),
  scoreStatus: 200,
  speedFails: new Set(),
});

const SCORE: Omit<TScoreCheck, 'time'> = {
  status: 'done',
  score: { status1: 'ok', score1: 99, status2: 'ok', score2: 88, status3: 'error', score3: 0 },
  warnings: { proxy: true, tor: false, vpn: true, hosting: true, abuse: false },
};

/** Answers a checks call, or null for another path. */
export function answerChecks(
  mock: ChecksMock,
  agents: TAgent[],
  account: TAccount | null,
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): MockAnswer | null {
  const speedPath = /^\/agents\/([^/]+)\/speedcheck$/.exec(path);
  if (method === 'GET' && speedPath) {
    const id = decodeURIComponent(speedPath[1]!);
    if (!agents.some((a) => a.id === id))
      return { status: 404, body: { error: 'NOT_FOUND', message: 'no agent' } };
    const entry = mock.speed.get(id);
    if (query.get('request') === 'true') {
      if (entry && (entry.check.status === 'done' || entry.check.status === 'failed')) {
        return {
          status: 409,
          body: {
            error: 'CONFLICT',
            message: 'later',
            errorCode: 'rejected',
            retestAt: entry.check.retestAt,
            check: entry.check,
          },
        };
      }
      const now = Date.now();
      const check: TSpeedCheck = {
        status: 'checking',
        bps: null,
        checkTime: null,
        requestedAt: new Date(now).toISOString(),
        retestAt: new Date(now + 6 * 60_000).toISOString(),
      };
      mock.speed.set(id, { check, looks: 0 });
      return { status: 200, body: check };
    }
    if (!entry) return { status: 404, body: { error: 'NOT_FOUND', message: 'none', errorCode: 'notFound' } };
    entry.looks++;
    if (entry.looks >= 1 && entry.check.status === 'checking') {
      const failed = mock.speedFails.has(id);
      entry.check = {
        ...entry.check,
        status: failed ? 'failed' : 'done',
        bps: failed ? null : 42_500_000,
        checkTime: new Date().toISOString(),
      };
    }
    return { status: 200, body: entry.check };
  }
  if (path !== '/agents/scorecheck') return null;
  if (method === 'POST') {
    const token = `tok-${mock.tokens.size + 1}`;
    mock.tokens.add(token);
    return { status: 200, body: { priceC: MOCK_SCORE_PRICE_C, oneTimeToken: token } };
  }
  if (method !== 'PATCH') return null;
  const { agentID, oneTimeToken } = body as { agentID: string; oneTimeToken: string };
  if (mock.scoreStatus !== 200) {
    const status = mock.scoreStatus;
    mock.scoreStatus = 200;
    return { status, body: { error: 'MOCK', message: 'refused' } };
  }
  if (!mock.tokens.delete(oneTimeToken)) {
    return { status: 409, body: { error: 'CONFLICT', message: 'used', errorCode: 'tokenUsed' } };
  }
  const agent = agents.find((a) => a.id === agentID);
  if (!agent) return { status: 404, body: { error: 'NOT_FOUND', message: 'no agent' } };
  if (!account || account.balanceC < MOCK_SCORE_PRICE_C)
    return { status: 402, body: { error: 'PAYMENT_REQUIRED', message: 'funds' } };
  const balance: Cents = cents(account.balanceC - MOCK_SCORE_PRICE_C);
  account.balanceC = balance;
  account.balanceCents = balance;
  agent.scoreCheck = { ...SCORE, time: new Date().toISOString() };
  return { status: 200, body: agent.scoreCheck };
}
