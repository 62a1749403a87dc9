/**
 * The three IP score providers behind one interface, each by its real HTTP API
 * (docs/rules.md §7, "Score providers"): G = GetIPIntel (probability 0-1), I = IPQualityScore (fraud score
 * 0-100 and flags), M = MaxMind minFraud Insights (IP risk 0.01-99 and traits). Every score is on
 * 0-100, rounded to 2 decimals; a provider that is not configured, times out, or answers an error
 * is `status: 'error'`.
 */
import type { ScoreProviderLabel, TScoreCheck } from '@pm/contracts';
import type { ChecksSettings } from './checks.config.ts';

export type Warnings = TScoreCheck['warnings'];
export interface ProviderResult {
  status: 'ok' | 'error';
  score: number;
  warnings: Partial<Warnings>;
  /** Why it failed (logs only). */
  error?: string;
}
export type ScoreProvider = (ip: string, signal: AbortSignal) => Promise<ProviderResult>;

const round2 = (x: number) => Math.round(x * 100) / 100;
const fail = (error: string): ProviderResult => ({ status: 'error', score: 0, warnings: {}, error });

async function readJson(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The providers, by label, over the configured base URLs and keys. */
export function createScoreProviders(
  s: ChecksSettings['score'],
  fetchImpl: typeof fetch = fetch,
): Record<ScoreProviderLabel, ScoreProvider> {
  return {
    async G(ip, signal) {
      if (!s.getipintel.contact) return fail('GetIPIntel contact not configured');
      const url = new URL('/check.php', s.getipintel.url);
      url.search = new URLSearchParams({ ip, contact: s.getipintel.contact, format: 'json' }).toString();
      const body = await readJson(await fetchImpl(url, { signal }));
      const p = Number(body.result);
      // Negative results are GetIPIntel's error codes.
      if (body.status !== 'success' || !Number.isFinite(p) || p < 0 || p > 1) {
        return fail(`GetIPIntel: ${String(body.message ?? body.result ?? 'no result')}`);
      }
      return { status: 'ok', score: round2(p * 100), warnings: { proxy: p > 0.95 } };
    },

    async I(ip, signal) {
      if (!s.ipqs.key) return fail('IPQualityScore key not configured');
      const url = new URL(
        `/api/json/ip/${encodeURIComponent(s.ipqs.key)}/${encodeURIComponent(ip)}`,
        s.ipqs.url,
      );
      url.search = 'strictness=1';
      const body = await readJson(await fetchImpl(url, { signal }));
      const score = Number(body.fraud_score);
      if (body.success !== true || !Number.isFinite(score)) {
        return fail(`IPQualityScore: ${String(body.message ?? 'no fraud_score')}`);
      }
      return {
        status: 'ok',
        score: round2(Math.min(100, Math.max(0, score))),
        warnings: {
          proxy: body.proxy === true,
          vpn: body.vpn === true || body.active_vpn === true,
          tor: body.tor === true || body.active_tor === true,
          hosting: body.connection_type === 'Data Center',
          abuse: body.recent_abuse === true,
        },
      };
    },

    async M(ip, signal) {
      if (!s.minfraud.accountId || !s.minfraud.licenseKey) return fail('minFraud account not configured');
      const auth = Buffer.from(`${s.minfraud.accountId}:${s.minfraud.licenseKey}`).toString('base64');
      const res = await fetchImpl(new URL('/minfraud/v2.0/insights', s.minfraud.url), {
        method: 'POST',
        headers: {
          authorization: `Basic ${auth}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ device: { ip_address: ip } }),
        signal,
      });
      const body = await readJson(res);
      const ipInfo = (body.ip_address ?? {}) as { risk?: unknown; traits?: Record<string, unknown> };
      const risk = Number(ipInfo.risk ?? body.risk_score);
      if (!res.ok || !Number.isFinite(risk))
        return fail(`minFraud ${res.status}: ${String(body.error ?? body.code ?? '')}`);
      const t = ipInfo.traits ?? {};
      return {
        status: 'ok',
        score: round2(Math.min(100, Math.max(0, risk))),
        warnings: {
          proxy: t.is_public_proxy === true || t.is_residential_proxy === true,
          vpn: t.is_anonymous_vpn === true,
          tor: t.is_tor_exit_node === true,
          hosting: t.is_hosting_provider === true,
        },
      };
    },
  };
}

/** Runs every provider at once, each within `timeoutMs` (its request aborted then); never throws. */
export async function runScoreProviders(
  providers: Record<ScoreProviderLabel, ScoreProvider>,
  ip: string,
  timeoutMs: number,
): Promise<Record<ScoreProviderLabel, ProviderResult>> {
  const run = async (p: ScoreProvider): Promise<ProviderResult> => {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Raced as well as aborted: a client that ignores the signal still cannot hold the check.
    const timeout = new Promise<ProviderResult>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve(fail(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([p(ip, abort.signal), timeout]);
    } catch (e) {
      return fail((e as Error).message);
    } finally {
      clearTimeout(timer);
    }
  };
  const [G, I, M] = await Promise.all([run(providers.G), run(providers.I), run(providers.M)]);
  return { G, I, M };
}

/** The warnings across the providers that answered: each one set if any provider says so. */
export function mergeWarnings(results: Record<ScoreProviderLabel, ProviderResult>): Warnings {
  const ok = Object.values(results).filter((r) => r.status === 'ok');
  const any = (k: keyof Warnings) => ok.some((r) => r.warnings[k] === true);
  return {
    proxy: any('proxy'),
    tor: any('tor'),
    vpn: any('vpn'),
    hosting: any('hosting'),
    abuse: any('abuse'),
  };
}
