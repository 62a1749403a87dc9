/**
 * Composes the whole product in one process: mail catcher (unless real SMTP is configured),
 * webhook inbox, identity, market API with its job workers, and the web listener. Used by the launcher
 * (`npm start`) and by end-to-end tests; production runs each app on its own with its own main.ts.
 */
import { BROWSER_ADDON_ORIGIN, BROWSER_ADDON_REDIRECT_URI, type TEnvironment } from '@pm/contracts';
import type { DbHandle } from '@pm/db';
import { start as startIdentity } from '@pm/identity';
import { DEFAULT_CHECKS_SETTINGS, DEFAULT_PAYMENTS_SETTINGS, start as startServer } from '@pm/server';
import { type ChainSimulator, startChainSimulator, startTicker } from './chain/index.ts';
import { DEMO_DNSBL_LISTINGS, startDnsblServer, startScoreStandIns } from './checks/index.ts';
import { type MailCatcher, startMailCatcher } from './mail.ts';
import { type DemoNetwork, type DemoNetworkConfig, startDemoNetwork } from './network.ts';
import { getFreePort } from './ports.ts';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox.ts';

export interface ProductPorts {
  web: number;
  api: number;
  identity: number;
  mailWeb: number;
  smtp: number;
  /** The Ports API's own listener (default 0: a free port). */
  portsApi?: number | undefined;
  /** The devnet webhook inbox's page and receiver (default 0: a free port). */
  webhookInbox?: number | undefined;
}

export interface ProductConfig {
  db: DbHandle;
  /** Address every listener binds to. */
  host: string;
  /** Host name in the URLs people open (and in the OIDC redirect URIs). */
  publicHost: string;
  /** 0 picks a free port. */
  ports: ProductPorts;
  /** Further page origins the web app accepts (e.g. the 127.0.0.1 twin of localhost). */
  extraWebOrigins: string[];
  /** Real SMTP server; when unset the devnet mail catcher receives all mail. */
  smtpUrl?: string | undefined;
  mailFrom: string;
  apiAudience: string;
  webClientId: string;
  apiClient: { clientId: string };
  jwks?: { keys: object[] } | undefined;
  cookieKeys: string[];
  webRoot: string;
  termsVersion: number;
  support: TEnvironment['support'];
  logLevel?: string;
  /** The operator's Terms and Privacy copy (Markdown) the web listener serves; unset: the app's template. */
  legal?: { terms?: string | undefined; privacy?: string | undefined } | undefined;
  /** Permissions an account gets when it is created at sign-up (the server's NEW_ACCOUNT_PERMISSIONS); default none. */
  newAccountPermissions?: readonly string[] | undefined;
  /** The API's METRICS_TOKEN (`/metrics` needs it as a bearer token); unset: `/metrics` answers 403. */
  metricsToken?: string | undefined;
  /** The demo proxy network (gateway node and agents); omitted in tests that do not need it. */
  network?: Omit<DemoNetworkConfig, 'db' | 'host' | 'publicHost'> | undefined;
  /**
   * Crypto payments against the devnet chain simulator and ticker (0 picks free ports), with the
   * operator's account xpubs (the launcher generates throwaway ones); omitted: payments off.
   */
  payments?: PaymentsDevnetConfig | undefined;
  /**
   * The checks' stand-ins (a DNSBL server on loopback UDP, the three score providers over HTTP) the
   * API's checks module is pointed at; 0 picks free ports, `false` leaves the module on its defaults.
   */
  checks?: { dnsPort: number; providersPort: number } | false | undefined;
}

/** Where the devnet's chain simulator and ticker listen, and the xpubs charges derive from. */
export interface PaymentsDevnetConfig {
  chainPort: number;
  tickerPort: number;
  xpubs: { btc?: string; ltc?: string; trc20usdt?: string };
  bonusPct?: number;
  /** Seconds between watcher passes; default 30 (tests shorten it so a payment is credited in seconds). */
  watchIntervalSeconds?: number | undefined;
}

export interface Product {
  webUrl: string;
  apiUrl: string;
  /** The Ports API's base address (its own listener). */
  portsApiUrl: string;
  issuer: string;
  mailUrl: string | undefined;
  mail: MailCatcher | undefined;
  network: DemoNetwork | undefined;
  /** The chain simulator (pay and mine from tests; its page has a pay form); undefined when payments are off. */
  chain: ChainSimulator | undefined;
  /** The webhook inbox: the market API lets webhooks reach its origin and no other private address. */
  webhookInbox: WebhookInbox;
  /** Queues a market API job now, as its schedule would (tests: `webhooks.scan` without a minute's wait). */
  sendJob(name: string): Promise<void>;
  /** The signing keys identity used (persist them so tokens survive a restart). */
  jwks: { keys: object[] };
  /** Stops the market API (and its web listener); identity and mail keep running. */
  stopApi(): Promise<void>;
  close(): Promise<void>;
}

const pick = async (port: number, host: string) => (port === 0 ? getFreePort(host) : port);

export async function startProduct(cfg: ProductConfig): Promise<Product> {
  const { host, publicHost } = cfg;
  const [webPort, apiPort, identityPort] = [
    await pick(cfg.ports.web, host),
    await pick(cfg.ports.api, host),
    await pick(cfg.ports.identity, host),
  ];
  const portsApiPort = await pick(cfg.ports.portsApi ?? 0, host);
  const portsApiUrl = `http://${publicHost}:${portsApiPort}`;
  const webUrl = `http://${publicHost}:${webPort}`;
  const apiUrl = `http://${publicHost}:${apiPort}`;
  const issuer = `http://${publicHost}:${identityPort}`;
  const webOrigins = [webUrl, ...cfg.extraWebOrigins];

  const closers: Array<() => Promise<void>> = [];
  try {
    let mail: MailCatcher | undefined;
    if (!cfg.smtpUrl) {
      mail = await startMailCatcher({ host, smtpPort: cfg.ports.smtp, httpPort: cfg.ports.mailWeb });
      closers.push(() => mail!.close());
    }
    const webhookInbox = await startWebhookInbox({
      host,
      port: cfg.ports.webhookInbox ?? 0,
      publicHost,
    });
    closers.push(() => webhookInbox.close());
    const identity = await startIdentity({
      host,
      port: identityPort,
      issuer,
      db: cfg.db,
      apiAudience: cfg.apiAudience,
      webClient: {
        clientId: cfg.webClientId,
        // The browser add-on signs in as the web client, at its own redirect URI (apps/extension).
        redirectUris: [...webOrigins.map((o) => `${o}/callback`), BROWSER_ADDON_REDIRECT_URI],
        postLogoutRedirectUris: webOrigins.map((o) => `${o}/`),
      },
      apiClient: cfg.apiClient,
      corsOrigins: [...webOrigins, BROWSER_ADDON_ORIGIN],
      appUrl: `${webUrl}/`,
      smtpUrl: cfg.smtpUrl ?? mail!.smtpUrl,
      mailFrom: cfg.mailFrom,
      jwks: cfg.jwks,
      cookieKeys: cfg.cookieKeys,
    });
    closers.push(() => identity.close());

    const environment: TEnvironment = {
      name: 'local',
      origins: webOrigins,
      apiUrl,
      portsApiUrl,
      issuer,
      clientId: cfg.webClientId,
      audience: cfg.apiAudience,
      siteUrl: `${webUrl}/`,
      support: cfg.support,
      termsVersion: cfg.termsVersion,
      publicApiClient: cfg.apiClient,
      webhookInbox: { origin: webhookInbox.origin, pageUrl: `${webhookInbox.webUrl}/` },
    };
    let chain: ChainSimulator | undefined;
    let payments: Parameters<typeof startServer>[0]['settings'] = {};
    if (cfg.payments) {
      const sim = await startChainSimulator({ host, port: cfg.payments.chainPort });
      chain = sim;
      closers.push(() => sim.close());
      const ticker = await startTicker({ host, port: cfg.payments.tickerPort });
      closers.push(() => ticker.close());
      payments = {
        payments: {
          ...DEFAULT_PAYMENTS_SETTINGS,
          xpubs: cfg.payments.xpubs,
          esplora: { btc: { url: sim.esploraUrl('btc') }, ltc: { url: sim.esploraUrl('ltc') } },
          trongrid: { ...DEFAULT_PAYMENTS_SETTINGS.trongrid, url: sim.tronGridUrl },
          rates: { ...DEFAULT_PAYMENTS_SETTINGS.rates, krakenUrl: ticker.url, fallbackUrl: ticker.url },
          // Devnet blocks are mined by hand: `npm run devnet -- pay` mines 6, enough for both.
          confirmations: { btc: 1, ltc: 2 },
          bonusPct: cfg.payments.bonusPct ?? 0,
          watchIntervalSeconds:
            cfg.payments.watchIntervalSeconds ?? DEFAULT_PAYMENTS_SETTINGS.watchIntervalSeconds,
        },
      };
    }
    let checks: NonNullable<typeof payments>['checks'];
    if (cfg.checks !== false) {
      const dns = await startDnsblServer({
        host,
        port: cfg.checks?.dnsPort ?? 0,
        listings: DEMO_DNSBL_LISTINGS,
      });
      closers.push(() => dns.close());
      const providers = await startScoreStandIns({ host, port: cfg.checks?.providersPort ?? 0 });
      closers.push(() => providers.close());
      const d = DEFAULT_CHECKS_SETTINGS;
      checks = {
        ...d,
        // The real zone names, answered by the stand-in; production asks the operator's resolver.
        dnsbl: { ...d.dnsbl, server: dns.server },
        score: {
          ...d.score,
          getipintel: { url: providers.url, contact: 'devnet@example.test' },
          ipqs: { url: providers.url, key: providers.ipqsKey },
          minfraud: { url: providers.url, ...providers.minfraud },
        },
      };
    }
    const server = await startServer({
      settings: {
        ...payments,
        checks,
        newAccountPermissions: cfg.newAccountPermissions,
        metricsToken: cfg.metricsToken,
        // The inbox alone: every other loopback and private address stays refused, as in production.
        webhookAllowUrls: [webhookInbox.origin],
      },
      // The API and the job workers (lease expiry, …) in this process: PGlite allows no second one.
      roles: ['http', 'worker'],
      host,
      port: apiPort,
      ports: { host, port: portsApiPort },
      db: cfg.db,
      oidc: { issuer, audience: cfg.apiAudience, algorithms: ['ES256'], permissionsClaim: 'permissions' },
      corsOrigins: webOrigins,
      web: { host, port: webPort, root: cfg.webRoot, environments: [environment], legal: cfg.legal },
      logLevel: cfg.logLevel ?? 'warn',
    });
    let serverOpen = true;
    const stopApi = async () => {
      if (!serverOpen) return;
      serverOpen = false;
      await server.close();
    };
    closers.push(stopApi);

    let network: DemoNetwork | undefined;
    if (cfg.network) {
      network = await startDemoNetwork({ ...cfg.network, db: cfg.db, host, publicHost });
      closers.push(() => network!.close());
      // The demo agents' blacklists now, not at the sweep's next minute.
      if (cfg.checks !== false) await server.sendJob('checks.blacklists');
    }

    return {
      webUrl,
      apiUrl,
      portsApiUrl,
      issuer,
      mailUrl: mail?.webUrl.replace(`//${host}:`, `//${publicHost}:`),
      mail,
      network,
      chain,
      webhookInbox,
      sendJob: (name) => server.sendJob(name),
      jwks: identity.jwks,
      stopApi,
      async close() {
        for (const c of closers.reverse()) await c().catch(() => {});
      },
    };
  } catch (e) {
    for (const c of closers.reverse()) await c().catch(() => {});
    throw e;
  }
}
