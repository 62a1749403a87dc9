import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type ScoreStandIns, startScoreStandIns } from '@pm/devnet/checks';
import { DEFAULT_CHECKS_SETTINGS } from './checks.config.ts';
import { createScoreProviders, mergeWarnings, runScoreProviders } from './checks.providers.ts';

/** Answers recorded from the providers' documentation (fixtures/*.json). */
const recorded = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as {
    ok: Record<string, unknown>;
    error: Record<string, unknown>;
  };
const G = recorded('getipintel');
const I = recorded('ipqs');
const M = recorded('minfraud');

/** Keys and value types, recursively: two answers of one shape give the same. */
function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, x]) => [k, shapeOf(x)]),
    );
  }
  return typeof v;
}

const settings = {
  ...DEFAULT_CHECKS_SETTINGS.score,
  getipintel: { url: 'http://g.test', contact: 'ops@example.test' },
  ipqs: { url: 'http://i.test', key: 'k' },
  minfraud: { url: 'http://m.test', accountId: '1', licenseKey: 'l' },
};

/** A fetch that answers each provider's host with one recorded body. */
function recordedFetch(bodies: { g: unknown; i: unknown; m: unknown; mStatus?: number }): typeof fetch {
  return (async (input: string | URL | Request) => {
    const host = new URL(String(input instanceof Request ? input.url : input)).host;
    const [body, status] =
      host === 'g.test'
        ? [bodies.g, 200]
        : host === 'i.test'
          ? [bodies.i, 200]
          : [bodies.m, bodies.mStatus ?? 200];
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

let standIns: ScoreStandIns;
before(async () => {
  standIns = await startScoreStandIns();
});
after(() => standIns.close());

test('each provider reads its recorded answer: scores on 0-100 and the warnings', async () => {
  const providers = createScoreProviders(settings, recordedFetch({ g: G.ok, i: I.ok, m: M.ok }));
  const r = await runScoreProviders(providers, '203.0.113.12', 1000);
  assert.deepEqual(
    [r.G.status, r.G.score, r.I.status, r.I.score, r.M.status, r.M.score],
    ['ok', 99, 'ok', 88, 'ok', 78.1],
  );
  assert.deepEqual(mergeWarnings(r), { proxy: true, tor: false, vpn: true, hosting: true, abuse: true });
});

test("each provider's recorded error is a failed provider, never a score", async () => {
  const providers = createScoreProviders(
    settings,
    recordedFetch({ g: G.error, i: I.error, m: M.error, mStatus: 401 }),
  );
  const r = await runScoreProviders(providers, '203.0.113.12', 1000);
  assert.deepEqual([r.G.status, r.I.status, r.M.status], ['error', 'error', 'error']);
  assert.deepEqual(mergeWarnings(r), { proxy: false, tor: false, vpn: false, hosting: false, abuse: false });
});

test('a provider without its key, or slower than the timeout, fails alone', async () => {
  const hanging = (() => new Promise<Response>(() => {})) as unknown as typeof fetch;
  const slow = createScoreProviders({ ...settings, ipqs: { url: 'http://i.test', key: '' } }, hanging);
  const started = Date.now();
  const r = await runScoreProviders(slow, '203.0.113.12', 200);
  assert.ok(Date.now() - started < 2000);
  assert.deepEqual([r.G.status, r.I.status, r.M.status], ['error', 'error', 'error']);
  assert.match(r.I.error ?? '', /not configured/);
});

test("the devnet's stand-ins answer in the recorded shapes", async () => {
  const flagged = '203.0.113.12';
  const g = await fetch(`${standIns.url}/check.php?ip=${flagged}&contact=a@b.test&format=json`);
  assert.deepEqual(shapeOf(await g.json()), shapeOf(G.ok));
  const gErr = await fetch(`${standIns.url}/check.php?ip=192.0.2.14&contact=a@b.test&format=json`);
  assert.equal(gErr.status, 400);
  assert.deepEqual(shapeOf(await gErr.json()), shapeOf(G.error));

  const i = await fetch(`${standIns.url}/api/json/ip/${standIns.ipqsKey}/${flagged}?strictness=1`);
  assert.deepEqual(shapeOf(await i.json()), shapeOf(I.ok));
  const iErr = await fetch(`${standIns.url}/api/json/ip/wrong-key/${flagged}?strictness=1`);
  assert.deepEqual(shapeOf(await iErr.json()), shapeOf(I.error));

  const auth = `Basic ${Buffer.from(`${standIns.minfraud.accountId}:${standIns.minfraud.licenseKey}`).toString('base64')}`;
  const m = await fetch(`${standIns.url}/minfraud/v2.0/insights`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ device: { ip_address: flagged } }),
  });
  assert.deepEqual(shapeOf(await m.json()), shapeOf(M.ok));
  const mErr = await fetch(`${standIns.url}/minfraud/v2.0/insights`, {
    method: 'POST',
    body: JSON.stringify({ device: { ip_address: flagged } }),
  });
  assert.equal(mErr.status, 401);
  assert.deepEqual(shapeOf(await mErr.json()), shapeOf(M.error));
});

test('the providers against the stand-ins: clean, flagged, tor, partial and down addresses', async () => {
  const providers = createScoreProviders({
    ...settings,
    getipintel: { url: standIns.url, contact: 'ops@example.test' },
    ipqs: { url: standIns.url, key: standIns.ipqsKey },
    minfraud: { url: standIns.url, ...standIns.minfraud },
  });
  const statuses = async (ip: string) => {
    const r = await runScoreProviders(providers, ip, 2000);
    return { s: [r.G.status, r.I.status, r.M.status], w: mergeWarnings(r) };
  };
  assert.deepEqual((await statuses('192.0.2.99')).s, ['ok', 'ok', 'ok']);
  assert.equal((await statuses('192.0.2.99')).w.proxy, false);
  assert.equal((await statuses('198.51.100.13')).w.tor, true);
  assert.deepEqual((await statuses('203.0.113.10')).s, ['ok', 'error', 'ok']);
  assert.deepEqual((await statuses('192.0.2.14')).s, ['error', 'error', 'error']);
});
