/**
 * Loopback stand-ins of the three IP score providers, answering in their real request and answer
 * shapes (docs/rules.md §7, "Score providers"):
 * - GetIPIntel: `GET /check.php?ip=&contact=&format=json` -> `{ status, result, queryIP, … }`;
 * - IPQualityScore: `GET /api/json/ip/{key}/{ip}?strictness=1` -> `{ success, fraud_score, proxy, … }`;
 * - MaxMind minFraud Insights: `POST /minfraud/v2.0/insights` (Basic auth, `{ device: { ip_address } }`)
 *   -> `{ id, risk_score, ip_address: { risk, traits }, … }`.
 * What each says about an address comes from its profile (demo.ts); unknown addresses are clean.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_SCORE_PROFILES, type ScoreProfile } from './demo.ts';

export interface ScoreStandIns {
  /** Base URL of all three (each provider's paths are distinct). */
  url: string;
  /** The key and account the stand-ins accept. */
  ipqsKey: string;
  minfraud: { accountId: string; licenseKey: string };
  /** Requests served, by provider. */
  calls: { G: number; I: number; M: number };
  setProfile(ip: string, profile: ScoreProfile): void;
  close(): Promise<void>;
}

const IPQS_KEY = 'devnet-ipqs-key';
const MINFRAUD = { accountId: '100001', licenseKey: 'devnet-license' };

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** GetIPIntel: the probability as a string; errors are negative numbers with HTTP 400. */
export function getIpIntelAnswer(ip: string, profile: ScoreProfile): { status: number; body: unknown } {
  if (profile === 'down')
    return { status: 400, body: { status: 'error', result: '-3', message: 'Unroutable address' } };
  const result = profile === 'clean' || profile === 'partial' ? '0.02' : profile === 'tor' ? '1' : '0.99';
  return {
    status: 200,
    body: {
      status: 'success',
      result,
      queryIP: ip,
      queryFlags: null,
      queryOFlags: null,
      queryFormat: 'json',
      contact: '',
    },
  };
}

/** IPQualityScore: `success: false` with a message on errors (still HTTP 200). */
export function ipqsAnswer(ip: string, profile: ScoreProfile): unknown {
  if (profile === 'down' || profile === 'partial') {
    return {
      success: false,
      message: 'You have exceeded your request quota of 5,000 per month.',
      request_id: randomUUID(),
    };
  }
  const bad = profile !== 'clean';
  return {
    success: true,
    message: 'Success',
    fraud_score: profile === 'clean' ? 8 : profile === 'tor' ? 100 : 88,
    country_code: 'US',
    region: 'New York',
    city: 'New York',
    ISP: 'Devnet Broadband',
    ASN: 64500,
    organization: 'Devnet Broadband',
    is_crawler: false,
    timezone: 'America/New_York',
    mobile: false,
    host: `${ip}.devnet.example`,
    proxy: bad,
    vpn: profile === 'flagged',
    tor: profile === 'tor',
    active_vpn: false,
    active_tor: profile === 'tor',
    recent_abuse: bad,
    bot_status: bad,
    connection_type: profile === 'flagged' ? 'Data Center' : 'Residential',
    abuse_velocity: bad ? 'high' : 'none',
    zip_code: '10001',
    latitude: 40.75,
    longitude: -73.99,
    request_id: randomUUID(),
  };
}

/** minFraud Insights: errors are 4xx/5xx `{ code, error }`. */
export function minFraudAnswer(ip: string, profile: ScoreProfile): { status: number; body: unknown } {
  if (profile === 'down') {
    return {
      status: 503,
      body: { code: 'SERVICE_UNAVAILABLE', error: 'The service is temporarily unavailable.' },
    };
  }
  const bad = profile === 'flagged' || profile === 'tor';
  return {
    status: 200,
    body: {
      id: randomUUID(),
      risk_score: bad ? 62.5 : 0.49,
      funds_remaining: 10.0,
      queries_remaining: 1000,
      ip_address: {
        risk: bad ? 78.1 : 0.3,
        traits: {
          ip_address: ip,
          network: `${ip}/32`,
          is_anonymous: bad,
          is_anonymous_vpn: profile === 'flagged',
          is_hosting_provider: profile === 'flagged',
          is_public_proxy: profile === 'flagged',
          is_residential_proxy: false,
          is_tor_exit_node: profile === 'tor',
          connection_type: profile === 'flagged' ? 'Corporate' : 'Cable/DSL',
          isp: 'Devnet Broadband',
        },
      },
      warnings: [],
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 65_536) break;
  }
  return body;
}

/** Starts the three stand-ins on one loopback port (0 picks a free one). */
export async function startScoreStandIns(
  options: { host?: string; port?: number } = {},
): Promise<ScoreStandIns> {
  const host = options.host ?? '127.0.0.1';
  const profiles = new Map<string, ScoreProfile>(Object.entries(DEMO_SCORE_PROFILES));
  const calls = { G: 0, I: 0, M: 0 };
  const profileOf = (ip: string) => profiles.get(ip) ?? 'clean';

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname === '/check.php') {
      calls.G++;
      const ip = url.searchParams.get('ip') ?? '';
      if (!url.searchParams.get('contact')) {
        return json(res, 400, {
          status: 'error',
          result: '-1',
          message: 'Invalid no input / missing contact',
        });
      }
      const a = getIpIntelAnswer(ip, profileOf(ip));
      return json(res, a.status, a.body);
    }
    const ipqs = /^\/api\/json\/ip\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && ipqs) {
      calls.I++;
      const [, key, ip = ''] = ipqs;
      if (key !== IPQS_KEY) {
        return json(res, 200, {
          success: false,
          message: 'Invalid or unauthorized key.',
          request_id: randomUUID(),
        });
      }
      return json(res, 200, ipqsAnswer(decodeURIComponent(ip), profileOf(decodeURIComponent(ip))));
    }
    if (req.method === 'POST' && url.pathname === '/minfraud/v2.0/insights') {
      calls.M++;
      const expected = `Basic ${Buffer.from(`${MINFRAUD.accountId}:${MINFRAUD.licenseKey}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        return json(res, 401, { code: 'AUTHORIZATION_INVALID', error: 'Invalid account ID or license key.' });
      }
      void readBody(req).then((raw) => {
        let ip = '';
        try {
          ip = String((JSON.parse(raw) as { device?: { ip_address?: unknown } }).device?.ip_address ?? '');
        } catch {}
        if (!ip)
          return json(res, 400, { code: 'IP_ADDRESS_REQUIRED', error: 'You must provide an IP address.' });
        const a = minFraudAnswer(ip, profileOf(ip));
        json(res, a.status, a.body);
      });
      return;
    }
    json(res, 404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ipqsKey: IPQS_KEY,
    minfraud: MINFRAUD,
    calls,
    setProfile(ip, profile) {
      profiles.set(ip, profile);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
