/**
 * `npm start`: the whole product in one process tree on the embedded database (PGlite under
 * DATA_DIR) or on DATABASE_URL. Creates the demo sign-ins at first start and prints them.
 * Every variable is listed in the README's configuration table.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { LEASE_HTTP_PORT_OFFSET } from '@pm/contracts';
import { createDb, migrateDb } from '@pm/db';
import { generateThrowawayXpubs } from '@pm/devnet/chain';
import {
  createDemoWebhook,
  DEMO_ADMIN_EMAIL,
  DEMO_CUSTOMER_EMAIL,
  type DemoCredentials,
  demoSignInLines,
  readDemoStatus,
  seedDemoUsers,
} from '@pm/devnet/demo';
import { DEMO_AGENT_COUNT } from '@pm/devnet/demo-identities';
import { startProduct } from '@pm/devnet/product';
import { buildAddon } from '@pm/extension/build';
import { checkPortPlan, DEFAULT_PORTS, ephemeralWarning, readEphemeralRange } from '@pm/gateway';
import { enrolTotp, newTotpSecret } from '@pm/identity';
import { z } from 'zod';

const startedAt = performance.now();
const root = resolve(import.meta.dirname, '..');
const port = (def: number) => z.coerce.number().int().min(0).max(65535).default(def);

const Env = z.object({
  HOST: z.string().default('127.0.0.1'),
  PUBLIC_HOST: z.string().default('localhost'),
  WEB_PORT: port(7300),
  API_PORT: port(7301),
  IDENTITY_PORT: port(7302),
  MAIL_PORT: port(7303),
  MAIL_SMTP_PORT: port(7304),
  // The devnet webhook inbox: the market API lets webhooks reach its origin and no other private address.
  WEBHOOK_INBOX_PORT: port(7308),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().default('ProxyMarket <no-reply@example.com>'),
  OIDC_AUDIENCE: z.string().url().default('https://api.proxymarket.local'),
  TERMS_VERSION: z.coerce.number().int().min(1).default(1),
  SUPPORT_EMAIL: z.string().default('support@example.com'),
  SUPPORT_MESSENGER: z.string().default('@proxymarket_support'),
  SUPPORT_MESSENGER_URL: z.string().url().default('https://t.me/proxymarket_support'),
  GATEWAY_TUNNEL_PORT: port(7310),
  GATEWAY_SOCKS_BASE_PORT: z.coerce.number().int().min(1).max(60455).default(10000),
  GATEWAY_METRICS_PORT: port(7311),
  // The demo agents may relay to loopback: their SOCKS ports stay on this machine unless asked.
  GATEWAY_SOCKS_HOST: z.string().default('127.0.0.1'),
  // The market API's /metrics bearer token; unset: generated at first start and kept in secrets.json.
  METRICS_TOKEN: z.string().min(16).optional(),
  // The demo node's no-auth and package ranges and their HTTP twins (docs/gateway.md, "Ports of a node").
  AUTH_PORT_MIN: port(DEFAULT_PORTS.authPortMin),
  AUTH_PORT_MAX: port(DEFAULT_PORTS.authPortMax),
  PACKAGE_PORT_MIN: port(DEFAULT_PORTS.packagePortMin),
  PACKAGE_PORT_MAX: port(DEFAULT_PORTS.packagePortMax),
  HTTP_PORT_OFFSET: z.coerce.number().int().min(1).max(65535).default(DEFAULT_PORTS.httpPortOffset),
  // One package of the largest size (400 ports) can be bought at once; each spare holds two sockets.
  PACKAGE_SPARE_PORTS: z.coerce.number().int().min(0).max(65535).default(400),
  CHAIN_PORT: port(7305),
  TICKER_PORT: port(7306),
  PORTS_PORT: port(7307),
  PAYMENTS_BONUS_PCT: z.coerce.number().int().min(0).max(100).default(0),
  DEMO_AGENTS: z.coerce.number().int().min(0).max(200).default(DEMO_AGENT_COUNT),
  // A person trying the product signs up, tops up and buys: DEPOSIT at sign-up ('' = staff review, as in production).
  NEW_ACCOUNT_PERMISSIONS: z
    .string()
    .default('DEPOSIT')
    .transform((s) =>
      s
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.literal('DEPOSIT'))),
  // The operator's Terms and Privacy copy (Markdown); unset: the web app's template of the product's rules.
  TERMS_FILE: z.string().optional(),
  PRIVACY_FILE: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});

const parsed = Env.safeParse(process.env);
if (!parsed.success) {
  for (const issue of parsed.error.issues)
    console.error(`Configuration error: ${issue.path.join('.')}: ${issue.message}`);
  process.exit(1);
}
const env = parsed.data;
if (env.DEMO_AGENTS > 0) checkDemoPorts();

/** The demo node's ports against each other and the product's listeners: an overlap stops the start. */
function checkDemoPorts(): void {
  const plan = {
    tunnelPort: env.GATEWAY_TUNNEL_PORT,
    metricsPort: env.GATEWAY_METRICS_PORT,
    socksBasePort: env.GATEWAY_SOCKS_BASE_PORT,
    authPortMin: env.AUTH_PORT_MIN,
    authPortMax: env.AUTH_PORT_MAX,
    packagePortMin: env.PACKAGE_PORT_MIN,
    packagePortMax: env.PACKAGE_PORT_MAX,
    httpPortOffset: env.HTTP_PORT_OFFSET,
    packageSparePorts: env.PACKAGE_SPARE_PORTS,
    others: {
      WEB_PORT: env.WEB_PORT,
      API_PORT: env.API_PORT,
      IDENTITY_PORT: env.IDENTITY_PORT,
      MAIL_PORT: env.MAIL_PORT,
      MAIL_SMTP_PORT: env.MAIL_SMTP_PORT,
      WEBHOOK_INBOX_PORT: env.WEBHOOK_INBOX_PORT,
      CHAIN_PORT: env.CHAIN_PORT,
      TICKER_PORT: env.TICKER_PORT,
      PORTS_PORT: env.PORTS_PORT,
    },
  };
  const problems = checkPortPlan(plan);
  for (const problem of problems) console.error(`Configuration error: ${problem}`);
  if (problems.length > 0) process.exit(1);
  const warning = ephemeralWarning(plan, readEphemeralRange());
  if (warning) console.warn(`Warning: ${warning}`);
}
const dataDir = resolve(env.DATA_DIR);
mkdirSync(dataDir, { recursive: true });

interface Secrets {
  cookieKeys: string[];
  jwks?: { keys: object[] };
  demo: DemoCredentials;
  /** The devnet operator's watch-only account keys (their private halves were never kept). */
  paymentXpubs?: { btc: string; ltc: string; trc20usdt: string };
  /** The market API's METRICS_TOKEN (`/metrics` needs it as a bearer token). */
  metricsToken?: string;
}

/** Secrets generated at first start and kept in DATA_DIR (never in the repository). */
function loadSecrets(): { secrets: Secrets; isNew: boolean } {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return { secrets: JSON.parse(readFileSync(file, 'utf8')) as Secrets, isNew: false };
  const secret = () => randomBytes(18).toString('base64url');
  const secrets: Secrets = {
    cookieKeys: [randomBytes(32).toString('base64url')],
    demo: {
      customer: { email: DEMO_CUSTOMER_EMAIL, password: secret() },
      admin: { email: DEMO_ADMIN_EMAIL, password: secret() },
    },
  };
  return { secrets, isNew: true };
}

function saveSecrets(secrets: Secrets): void {
  const file = join(dataDir, 'secrets.json');
  writeFileSync(file, JSON.stringify(secrets, null, 2));
  chmodSync(file, 0o600);
}

/** Newest modification time under a folder (for deciding whether the web build is stale). */
function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((n) => newestMtime(join(path, n))));
}

/**
 * The web app's build (rebuilt when its sources are newer) with the browser add-on's package in it:
 * the Downloads page links `/downloads/proxymarket-addon.zip`, and a web build alone empties `dist`,
 * so the add-on is packed on every start (a few small files, milliseconds), its popup pre-filled
 * with this start's site address.
 */
async function ensureWebBuild(): Promise<string> {
  const web = join(root, 'apps/web');
  const dist = join(web, 'dist');
  const built = existsSync(join(dist, 'index.html')) ? statSync(join(dist, 'index.html')).mtimeMs : 0;
  const sources = Math.max(newestMtime(join(web, 'src')), newestMtime(join(web, 'index.html')));
  if (built < sources) {
    console.log('Building the web app…');
    execFileSync('npm', ['run', 'build', '--silent', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
  }
  await buildAddon({ siteUrl: `http://${env.PUBLIC_HOST}:${env.WEB_PORT}`, webDist: dist });
  return dist;
}

/**
 * A fresh embedded database is created and migrated by a process of its own (scripts/prepare-db.ts),
 * which exits and takes initdb's memory with it; its peak resident set in MiB, or null when nothing
 * was created (PostgreSQL, or a DATA_DIR that already holds a database).
 */
function prepareEmbeddedDb(): number | null {
  if (env.DATABASE_URL || existsSync(join(dataDir, 'pglite', 'PG_VERSION'))) return null;
  console.log('Creating the embedded database…');
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, join(root, 'scripts/prepare-db.ts'), dataDir],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ).toString();
  const last = out.trim().split('\n').at(-1) ?? '{}';
  return (JSON.parse(last) as { peakMiB?: number | null }).peakMiB ?? null;
}

const webRoot = await ensureWebBuild();
const preparePeakMiB = prepareEmbeddedDb();
const db = await createDb({ databaseUrl: env.DATABASE_URL, dataDir });
await migrateDb(db);
const { secrets, isNew } = loadSecrets();
// The demo admin signs in with a second factor (staff must): its secret is kept beside its password.
const hadTotp = secrets.demo.admin.totpSecret !== undefined;
secrets.demo.admin.totpSecret ??= newTotpSecret();
if (isNew) await seedDemoUsers(db, secrets.demo);
else if (!hadTotp) await enrolTotp(db, secrets.demo.admin.email, secrets.demo.admin.totpSecret);
// Kept with the other generated secrets: addresses already handed out must stay the operator's.
const hadXpubs = secrets.paymentXpubs !== undefined;
secrets.paymentXpubs ??= generateThrowawayXpubs();
const hadMetricsToken = secrets.metricsToken !== undefined;
secrets.metricsToken ??= randomBytes(24).toString('base64url');
const metricsToken = env.METRICS_TOKEN ?? secrets.metricsToken;

const product = await startProduct({
  db,
  host: env.HOST,
  publicHost: env.PUBLIC_HOST,
  ports: {
    web: env.WEB_PORT,
    api: env.API_PORT,
    identity: env.IDENTITY_PORT,
    mailWeb: env.MAIL_PORT,
    smtp: env.MAIL_SMTP_PORT,
    portsApi: env.PORTS_PORT,
    webhookInbox: env.WEBHOOK_INBOX_PORT,
  },
  extraWebOrigins: env.PUBLIC_HOST === 'localhost' ? [`http://127.0.0.1:${env.WEB_PORT}`] : [],
  smtpUrl: env.SMTP_URL,
  mailFrom: env.MAIL_FROM,
  apiAudience: env.OIDC_AUDIENCE,
  webClientId: 'web',
  apiClient: { clientId: 'public-api' },
  jwks: secrets.jwks,
  cookieKeys: secrets.cookieKeys,
  webRoot,
  termsVersion: env.TERMS_VERSION,
  support: {
    email: env.SUPPORT_EMAIL,
    messenger: env.SUPPORT_MESSENGER,
    messengerUrl: env.SUPPORT_MESSENGER_URL,
  },
  logLevel: env.LOG_LEVEL,
  newAccountPermissions: env.NEW_ACCOUNT_PERMISSIONS,
  metricsToken,
  legal: {
    terms: env.TERMS_FILE ? readFileSync(env.TERMS_FILE, 'utf8') : undefined,
    privacy: env.PRIVACY_FILE ? readFileSync(env.PRIVACY_FILE, 'utf8') : undefined,
  },
  network:
    env.DEMO_AGENTS > 0
      ? {
          nodeId: 'gw-1',
          socksBasePort: env.GATEWAY_SOCKS_BASE_PORT,
          tunnelPort: env.GATEWAY_TUNNEL_PORT,
          metricsPort: env.GATEWAY_METRICS_PORT,
          socksHost: env.GATEWAY_SOCKS_HOST,
          authPortMin: env.AUTH_PORT_MIN,
          authPortMax: env.AUTH_PORT_MAX,
          packagePorts: {
            min: env.PACKAGE_PORT_MIN,
            max: env.PACKAGE_PORT_MAX,
            httpOffset: env.HTTP_PORT_OFFSET,
            spares: env.PACKAGE_SPARE_PORTS,
          },
          agentCount: env.DEMO_AGENTS,
        }
      : undefined,
  payments: {
    chainPort: env.CHAIN_PORT,
    tickerPort: env.TICKER_PORT,
    xpubs: secrets.paymentXpubs,
    bonusPct: env.PAYMENTS_BONUS_PCT,
  },
});
const madeWebhook = await ensureDemoWebhook();
if (!secrets.jwks) saveSecrets({ ...secrets, jwks: product.jwks });
else if (isNew || !hadXpubs || !hadMetricsToken || !hadTotp || madeWebhook) saveSecrets(secrets);
// `npm run devnet -- pay …` finds the running chain simulator here.
writeFileSync(join(dataDir, 'devnet.json'), JSON.stringify({ chainUrl: product.chain?.url }, null, 2));

/**
 * The demo customer's webhook endpoint on the inbox, made at first start (or when the inbox moved)
 * and kept in secrets.json; the inbox checks its deliveries' signatures with its secret. True when
 * one was made.
 */
async function ensureDemoWebhook(): Promise<boolean> {
  const inbox = product.webhookInbox;
  const kept = secrets.demo.customer.webhook;
  const current = kept && URL.canParse(kept.url) && new URL(kept.url).origin === inbox.origin;
  if (!current) {
    const made = await createDemoWebhook(db, secrets.demo.customer.email, inbox.hookUrl('demo'), [
      inbox.origin,
    ]);
    if (made) secrets.demo.customer.webhook = made;
  }
  if (secrets.demo.customer.webhook) inbox.setSecret('demo', secrets.demo.customer.webhook.secret);
  return !current && secrets.demo.customer.webhook !== kept;
}

const demoLines = demoSignInLines(secrets.demo, await readDemoStatus(db, secrets.demo));
const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
const rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
/** This process's peak resident set so far (VmHWM, Linux; null elsewhere). */
function peakMiB(): number | null {
  const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
  const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
  return kib ? Math.round(Number(kib) / 1024) : null;
}
const peak = peakMiB();
const memoryLine = [
  `${rssMiB} MiB resident now`,
  peak === null ? null : `peak so far ${peak} MiB`,
  preparePeakMiB === null
    ? null
    : `the new database was made by a process that peaked at ${preparePeakMiB} MiB and exited`,
]
  .filter(Boolean)
  .join('; ');
console.log(`
ProxyMarket is running (started in ${seconds} s, database: ${db.kind === 'pglite' ? `embedded PGlite in ${dataDir}` : 'PostgreSQL'}).

  Memory:          ${memoryLine}
                   (what an hour of use measured: docs/benchmarks.md, "Memory of npm start")

  Open:            ${product.webUrl}
  Sign-in host:    ${product.issuer}
  Market API:      ${product.apiUrl}  (OpenAPI: ${product.apiUrl}/openapi.json)
  Ports API:       ${product.portsApiUrl}  (rotation links: GET /port/change/ip/{port}/{key})
  API metrics:     curl -H 'Authorization: Bearer ${metricsToken}' ${product.apiUrl}/metrics
  Mail catcher:    ${product.mailUrl ?? `(real SMTP: ${env.SMTP_URL})`}
  Webhook inbox:   ${product.webhookInbox.webUrl}/  (webhooks may reach ${product.webhookInbox.origin} and no other private address${secrets.demo.customer.webhook ? `; the demo customer's endpoint is ${secrets.demo.customer.webhook.url}` : ''})
  Devnet chains:   ${product.chain?.url ?? '(off)'}  (pay a charge: npm run devnet -- pay ltc ADDRESS 0.25)
  SOCKS5 gateway:  ${product.network ? `${product.network.socksHost} ports ${product.network.socksPorts.join(', ')} (${product.network.agentsOnline().length} demo agents online; metrics on 127.0.0.1:${env.GATEWAY_METRICS_PORT}/metrics)\n                   ${product.network.tunnelNotice}` : '(off: DEMO_AGENTS=0)'}
  HTTP proxy:      ${product.network ? `${product.network.socksHost} port ${env.GATEWAY_SOCKS_BASE_PORT + LEASE_HTTP_PORT_OFFSET} (leases); package ports ${env.PACKAGE_PORT_MIN}-${env.PACKAGE_PORT_MAX} (${product.network.sparePorts()} spares bound) answer HTTP on port + ${env.HTTP_PORT_OFFSET}` : '(off: DEMO_AGENTS=0)'}

  ${demoLines.join('\n  ')}
  New accounts:    ${env.NEW_ACCOUNT_PERMISSIONS.length > 0 ? `get ${env.NEW_ACCOUNT_PERMISSIONS.join(', ')} at sign-up (NEW_ACCOUNT_PERMISSIONS)` : 'wait for staff to grant DEPOSIT (NEW_ACCOUNT_PERMISSIONS is empty)'}
  Public API client (password grant): public-api (a public client, no secret; API keys suit scripts better)

  (Passwords and the admin's 2FA secret generated at first start and kept in ${join(env.DATA_DIR, 'secrets.json')}. Ctrl+C stops.)
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await product.close();
  await db.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
