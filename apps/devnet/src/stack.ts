/**
 * The whole product on a fresh PostgreSQL database with free loopback ports, for end-to-end tests.
 * Web app origins: only `http://localhost:<port>`, so `http://127.0.0.1:<port>` is an unknown origin.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PERMISSION_DEPOSIT } from '@pm/contracts';
import { createTestDatabase } from '@pm/db/testing';
import { ensureUser, newTotpSecret } from '@pm/identity';
import { createServices } from '@pm/server';
import { type ChainSimulator, generateThrowawayXpubs } from './chain/index.ts';
import {
  createDemoWebhook,
  DEMO_ADMIN_EMAIL,
  DEMO_CUSTOMER_EMAIL,
  type DemoCredentials,
  seedDemoUsers,
} from './demo.ts';
import { DEMO_AGENT_COUNT } from './demo-identities.ts';
import type { CaughtMail } from './mail.ts';
import type { DemoNetwork } from './network.ts';
import { startProduct } from './product.ts';
import { createTotpClient } from './totp-client.ts';
import type { WebhookInbox } from './webhook-inbox.ts';

export interface TestStack {
  webUrl: string;
  apiUrl: string;
  issuer: string;
  /** The same web app through an origin that is not configured. */
  unknownOriginWebUrl: string;
  mail: {
    list(): Promise<CaughtMail[]>;
    waitFor(to: string, predicate?: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  };
  demo: DemoCredentials;
  /** The chain simulator: `chain.pay('ltc', address, '0.25')` pays and mines; its page has a pay form. */
  chain: ChainSimulator;
  /** The demo proxy network (gateway node and real agents), when `StackOptions.network` asked for it. */
  network: DemoNetwork | undefined;
  /**
   * The devnet webhook inbox, as `npm start` runs it: the API lets webhooks reach it alone, and the
   * demo customer has an endpoint on its inbox `demo` (`demo.customer.webhook`, secret given to it).
   */
  webhookInbox: WebhookInbox;
  /** Queues a market API job now, as its schedule would (`webhooks.scan` without a minute's wait). */
  sendJob(name: string): Promise<void>;
  /** The public API's password-grant client, a public one (also in the environment the web app reads). */
  apiClient: { clientId: string };
  /**
   * A market API access token for a user, by the public API client's password grant (with a fresh
   * two-factor code for a user whose secret the stack knows, such as the demo admin; that token is
   * reused while it has a minute left, as a script would, since each code works once).
   */
  token(email: string, password: string): Promise<string>;
  /** A fresh two-factor code for a user whose secret the stack knows (the demo admin); else undefined. */
  totpCode(email: string): Promise<string | undefined>;
  /** Creates a customer (sign-in user and market account with DEPOSIT, balance $0); returns its id. */
  addCustomer(email: string, password: string): Promise<string>;
  /**
   * Moves a lease's start and end `ms` earlier, as if it had been bought that long ago: the API
   * judges the renewal window (last 5 hours) and the refund window (first 4 hours) by them.
   */
  ageLease(leaseId: string, ms: number): Promise<void>;
  /**
   * Ends a lease now as the expiry job would (`expired`), optionally with `trafficBytes` moved
   * through it (split evenly both ways): the admin area's credit and traffic highlight need both.
   */
  endLease(leaseId: string, o?: { trafficBytes?: number }): Promise<void>;
  stopApi(): Promise<void>;
  close(): Promise<void>;
}

/** The built web app; `WEB_DIST_DIR` points at another build (as for the journeys' static server). */
export const WEB_ROOT = process.env.WEB_DIST_DIR ?? join(import.meta.dirname, '../../web/dist');
export const TEST_TERMS_VERSION = 3;

export interface StackOptions {
  label?: string;
  /** Seconds between payments watcher passes (default 30): a payment is credited within one. */
  paymentsWatchIntervalSeconds?: number;
  /**
   * Runs the demo proxy network as `npm start` does (one gateway node, real agents, other customers'
   * shared leases); `agentCount` defaults to the demo's 60.
   */
  network?: { agentCount?: number };
}

/** Whether a TCP port is free on loopback now. */
function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A SOCKS base port for a test gateway: its ports are base+2080..5080 and the HTTP proxy base+6080 (fixed offsets, so not port 0),
 * drawn below the ephemeral range so client sockets never hold them, and free when looked at.
 */
async function pickSocksBasePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 21_000 + Math.floor(Math.random() * 5000);
    const free = await Promise.all([2080, 3080, 4080, 5080, 6080].map((o) => isPortFree(base + o)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free SOCKS ports for the test gateway');
}

export async function startStack(options: StackOptions = {}): Promise<TestStack> {
  const db = await createTestDatabase(options.label ?? 'stack');
  const demo: DemoCredentials = {
    customer: { email: DEMO_CUSTOMER_EMAIL, password: randomBytes(9).toString('base64url') },
    admin: {
      email: DEMO_ADMIN_EMAIL,
      password: randomBytes(9).toString('base64url'),
      totpSecret: newTotpSecret(),
    },
  };
  const totp = new Map([[DEMO_ADMIN_EMAIL, createTotpClient(demo.admin.totpSecret ?? '')]]);
  const totpCode = async (email: string) => totp.get(email.toLowerCase())?.next();
  const tokens = new Map<string, { token: string; untilMs: number }>();
  const apiClient = { clientId: 'public-api' };
  try {
    await seedDemoUsers(db, demo);
    const socksBasePort = options.network ? await pickSocksBasePort() : 0;
    const product = await startProduct({
      db,
      host: '127.0.0.1',
      publicHost: 'localhost',
      ports: { web: 0, api: 0, identity: 0, mailWeb: 0, smtp: 0 },
      extraWebOrigins: [],
      mailFrom: 'ProxyMarket <no-reply@example.com>',
      apiAudience: 'https://api.proxymarket.local',
      webClientId: 'web',
      apiClient,
      cookieKeys: [randomBytes(24).toString('base64url')],
      webRoot: WEB_ROOT,
      termsVersion: TEST_TERMS_VERSION,
      payments: {
        chainPort: 0,
        tickerPort: 0,
        xpubs: generateThrowawayXpubs(),
        watchIntervalSeconds: options.paymentsWatchIntervalSeconds,
      },
      support: {
        email: 'support@example.com',
        messenger: '@proxymarket_support',
        messengerUrl: 'https://t.me/proxymarket_support',
      },
      network: options.network && {
        nodeId: 'gw-test',
        socksBasePort,
        tunnelPort: 0,
        authPortMin: socksBasePort - 4000,
        authPortMax: socksBasePort - 3900,
        // 300 package ports below the SOCKS ones; twins 1000 up, clear of both ranges and the SOCKS ports.
        packagePorts: { min: socksBasePort - 3800, max: socksBasePort - 3501, httpOffset: 1000, spares: 150 },
        agentCount: options.network.agentCount ?? DEMO_AGENT_COUNT,
      },
    });
    const mail = product.mail!;
    const inbox = product.webhookInbox;
    const webhook = await createDemoWebhook(db, DEMO_CUSTOMER_EMAIL, inbox.hookUrl('demo'), [
      inbox.origin,
    ]).catch(async (e: unknown) => {
      await product.close();
      throw e;
    });
    if (webhook) {
      demo.customer.webhook = webhook;
      inbox.setSecret('demo', webhook.secret);
    }
    return {
      webUrl: product.webUrl,
      apiUrl: product.apiUrl,
      issuer: product.issuer,
      unknownOriginWebUrl: product.webUrl.replace('localhost', '127.0.0.1'),
      mail: { list: async () => mail.list(), waitFor: (...a) => mail.waitFor(...a) },
      demo,
      apiClient,
      chain: product.chain!,
      network: product.network,
      webhookInbox: inbox,
      sendJob: product.sendJob,
      totpCode,
      async token(email, password) {
        const key = `${email.toLowerCase()}\n${password}`;
        const kept = tokens.get(key);
        if (kept && kept.untilMs > Date.now()) return kept.token;
        const otp = await totpCode(email);
        const res = await fetch(`${product.issuer}/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'password',
            username: email,
            password,
            client_id: apiClient.clientId,
            ...(otp ? { otp } : {}),
          }),
        });
        const body = (await res.json()) as { access_token?: string; expires_in?: number };
        if (!res.ok || !body.access_token) throw new Error(`token for ${email}: ${res.status}`);
        if (otp)
          tokens.set(key, {
            token: body.access_token,
            untilMs: Date.now() + ((body.expires_in ?? 0) - 60) * 1000,
          });
        return body.access_token;
      },
      async addCustomer(email, password) {
        const user = await ensureUser(db, { email, password, emailVerified: true });
        await createServices(db).accounts.ensureAccount({
          userId: user.id,
          email,
          permissions: [PERMISSION_DEPOSIT],
          refcode: user.referralCode,
          emailVerified: true,
        });
        return user.id;
      },
      async ageLease(leaseId, ms) {
        const moved = await db.query(
          `UPDATE leases SET start = start - $2 * interval '1 millisecond',
             until = until - $2 * interval '1 millisecond' WHERE id = $1 RETURNING id`,
          [leaseId, ms],
        );
        if (moved.length !== 1) throw new Error(`ageLease: no lease ${leaseId}`);
      },
      async endLease(leaseId, o = {}) {
        const half = Math.floor((o.trafficBytes ?? 0) / 2);
        const ended = await db.query(
          `UPDATE leases SET ended_at = now(), end_reason = 'expired', auto_renew = false,
             in_bytes = in_bytes + $2, out_bytes = out_bytes + $3 WHERE id = $1 RETURNING id`,
          [leaseId, half, (o.trafficBytes ?? 0) - half],
        );
        if (ended.length !== 1) throw new Error(`endLease: no lease ${leaseId}`);
      },
      stopApi: product.stopApi,
      async close() {
        await product.close();
        await db.drop();
      },
    };
  } catch (e) {
    await db.drop();
    throw e;
  }
}
