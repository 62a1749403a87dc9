/**
 * Demo agents for `npm start` and tests: agent rows with synthetic public identities from the
 * documentation ranges (RFC 5737), run by the real agent code against a real gateway, relaying real
 * traffic from this machine. Plus a loopback HTTP target for the gateway's probes and speed tests.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AgentHandle, startAgent } from '@pm/agent';
import type { DbHandle } from '@pm/db';
import { createOverrideGeo, type GeoLookup, type Loc } from '@pm/gateway/geo/geo';
import { hashAgentKey } from '@pm/gateway/store/agent-registry';

/** One demo agent: its row values and the identity the gateway is told about. */
export interface DemoIdentity {
  id: string;
  ip: string;
  loc: Loc & { lat: number; lon: number; host: string };
  conn: 'wifi' | 'cell';
  dev: 'android' | 'other';
  stars: number;
  priceExcC: number;
  priceShrC: number;
}

interface Place {
  cc: string;
  reg: string;
  city: string;
  zip: string;
  lat: number;
  lon: number;
  wifiIsp: string;
  cellIsp: string;
}

// Fictional ISPs; real cities with their postal codes and coordinates (for the radius search).
const PLACES: Place[] = [
  {
    cc: 'US',
    reg: 'CA',
    city: 'San Jose',
    zip: '95131',
    lat: 37.387,
    lon: -121.897,
    wifiIsp: 'Bayline Cable',
    cellIsp: 'Pacific Wireless',
  },
  {
    cc: 'US',
    reg: 'NY',
    city: 'New York',
    zip: '10001',
    lat: 40.75,
    lon: -73.997,
    wifiIsp: 'Hudson Fiber',
    cellIsp: 'Empire Mobile',
  },
  {
    cc: 'US',
    reg: 'TX',
    city: 'Austin',
    zip: '78701',
    lat: 30.271,
    lon: -97.742,
    wifiIsp: 'Lonestar Broadband',
    cellIsp: 'Pacific Wireless',
  },
  {
    cc: 'US',
    reg: 'FL',
    city: 'Miami',
    zip: '33101',
    lat: 25.779,
    lon: -80.198,
    wifiIsp: 'Gulf Cable',
    cellIsp: 'Empire Mobile',
  },
  {
    cc: 'US',
    reg: 'IL',
    city: 'Chicago',
    zip: '60601',
    lat: 41.886,
    lon: -87.622,
    wifiIsp: 'Lakeshore Net',
    cellIsp: 'Pacific Wireless',
  },
  {
    cc: 'GB',
    reg: 'ENG',
    city: 'London',
    zip: 'EC1A',
    lat: 51.52,
    lon: -0.098,
    wifiIsp: 'Thames Broadband',
    cellIsp: 'Albion Mobile',
  },
  {
    cc: 'GB',
    reg: 'SCT',
    city: 'Glasgow',
    zip: 'G1',
    lat: 55.861,
    lon: -4.25,
    wifiIsp: 'Clyde Fibre',
    cellIsp: 'Albion Mobile',
  },
  {
    cc: 'AE',
    reg: 'DU',
    city: 'Dubai',
    zip: '00000',
    lat: 25.204,
    lon: 55.27,
    wifiIsp: 'Gulfnet Home',
    cellIsp: 'Desert Mobile',
  },
  {
    cc: 'CA',
    reg: 'ON',
    city: 'Toronto',
    zip: 'M5H',
    lat: 43.651,
    lon: -79.383,
    wifiIsp: 'Maple Cable',
    cellIsp: 'Northern Wireless',
  },
  {
    cc: 'CA',
    reg: 'QC',
    city: 'Montreal',
    zip: 'H2Y',
    lat: 45.505,
    lon: -73.556,
    wifiIsp: 'Laurentian Net',
    cellIsp: 'Northern Wireless',
  },
  {
    cc: 'IT',
    reg: 'RM',
    city: 'Rome',
    zip: '00184',
    lat: 41.894,
    lon: 12.493,
    wifiIsp: 'Tevere Fibra',
    cellIsp: 'Italia Mobile',
  },
  {
    cc: 'IT',
    reg: 'MI',
    city: 'Milan',
    zip: '20121',
    lat: 45.472,
    lon: 9.189,
    wifiIsp: 'Navigli Net',
    cellIsp: 'Italia Mobile',
  },
  {
    cc: 'CN',
    reg: 'BJ',
    city: 'Beijing',
    zip: '100000',
    lat: 39.904,
    lon: 116.407,
    wifiIsp: 'Capital Broadband',
    cellIsp: 'Dragon Mobile',
  },
  {
    cc: 'DE',
    reg: 'BE',
    city: 'Berlin',
    zip: '10115',
    lat: 52.532,
    lon: 13.385,
    wifiIsp: 'Spree Kabel',
    cellIsp: 'Rhein Mobilfunk',
  },
  {
    cc: 'FR',
    reg: 'IDF',
    city: 'Paris',
    zip: '75001',
    lat: 48.862,
    lon: 2.336,
    wifiIsp: 'Seine Fibre',
    cellIsp: 'Hexagone Mobile',
  },
  {
    cc: 'AU',
    reg: 'NSW',
    city: 'Sydney',
    zip: '2000',
    lat: -33.868,
    lon: 151.209,
    wifiIsp: 'Harbour Broadband',
    cellIsp: 'Southern Cross Mobile',
  },
];

const RANGES = ['192.0.2', '198.51.100', '203.0.113'];

/**
 * The demo identities, deterministic for a given count: spread over the places (US weighted), the
 * three documentation ranges, wifi and cell, android and other, with varied scores and prices.
 */
export function demoIdentities(count = 36): DemoIdentity[] {
  const out: DemoIdentity[] = [];
  for (let i = 0; i < count; i++) {
    // Every other agent is in the US (the shop's default country), the rest go round the places.
    const place = i % 2 === 0 ? PLACES[(i / 2) % 5]! : PLACES[5 + (((i - 1) / 2) % (PLACES.length - 5))]!;
    const range = RANGES[i % RANGES.length]!;
    const ip = `${range}.${10 + Math.floor(i / RANGES.length)}`;
    const conn = i % 3 === 1 ? 'cell' : 'wifi';
    const dev = conn === 'cell' || i % 4 === 0 ? 'android' : 'other';
    const isp = conn === 'cell' ? place.cellIsp : place.wifiIsp;
    const stars = 3 + ((i * 7) % 8);
    const priceExcC = 300 + ((i * 53) % 7) * 100;
    out.push({
      id: `demo-${String(i + 1).padStart(2, '0')}`,
      ip,
      loc: {
        cc: place.cc,
        reg: place.reg,
        city: place.city,
        zip: place.zip,
        isp,
        mob: conn === 'cell',
        // Spread agents of one city a little so the radius search has something to sort.
        lat: Math.round((place.lat + ((i % 5) - 2) * 0.03) * 1000) / 1000,
        lon: Math.round((place.lon + ((i % 3) - 1) * 0.03) * 1000) / 1000,
        host: `${conn === 'cell' ? 'mob' : 'dyn'}-${ip.replaceAll('.', '-')}.${isp.toLowerCase().replaceAll(' ', '')}.example`,
      },
      conn,
      dev,
      stars,
      priceExcC,
      priceShrC: Math.round((priceExcC * 0.4) / 10) * 10,
    });
  }
  return out;
}

/** The gateway's location lookup for the demo identities (its override map), over `fallback`. */
export function demoGeo(identities: DemoIdentity[] = demoIdentities(), fallback?: GeoLookup): GeoLookup {
  return createOverrideGeo(new Map(identities.map((d) => [d.ip, d.loc])), fallback);
}

export interface DemoAgentsOptions {
  db: DbHandle;
  /** The gateway's agent tunnel address (the gateway must trust agents' `ip` override). */
  gateway: { host: string; port: number };
  /** TLS to the gateway, as for the agent CLI. */
  tls?: { ca?: string | Buffer; servername?: string; insecure?: boolean };
  identities?: DemoIdentity[];
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface DemoAgents {
  identities: DemoIdentity[];
  agents: AgentHandle[];
  /** Resolves when every agent has its tunnel up (rejects after `timeoutMs`). */
  waitConnected(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes the demo agents' rows (a fresh key each start, stored hashed; location, scores and prices
 * only when the row is new, so edits survive restarts) and starts the real agent for each.
 */
export async function startDemoAgents(options: DemoAgentsOptions): Promise<DemoAgents> {
  const identities = options.identities ?? demoIdentities();
  const keys = new Map<string, string>();
  for (const d of identities) {
    const key = randomBytes(24).toString('base64url');
    keys.set(d.id, key);
    await options.db.query(
      `INSERT INTO agents (id, key_hash, ip, host, cc, reg, city, zip, isp, mob, lat, lon, conn, dev, stars,
                           price_exc_c, price_shr_c)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ON CONFLICT (id) DO UPDATE SET key_hash = EXCLUDED.key_hash`,
      [
        d.id,
        hashAgentKey(key),
        d.ip,
        d.loc.host,
        d.loc.cc,
        d.loc.reg,
        d.loc.city,
        d.loc.zip,
        d.loc.isp,
        d.loc.mob,
        d.loc.lat,
        d.loc.lon,
        d.conn,
        d.dev,
        d.stars,
        d.priceExcC,
        d.priceShrC,
      ],
    );
  }
  const agents = identities.map((d) =>
    startAgent({
      gateway: options.gateway,
      key: keys.get(d.id)!,
      tls: options.tls,
      conn: d.conn,
      dev: d.dev,
      ipOverride: d.ip,
      // The demo relays to this machine's own services (probe target, local test pages).
      allowLoopback: true,
      backoffMinMs: 200,
      backoffMaxMs: 5000,
      log: options.log,
    }),
  );
  return {
    identities,
    agents,
    async waitConnected(timeoutMs) {
      await Promise.all(agents.map((a) => a.waitConnected(timeoutMs)));
    },
    async close() {
      await Promise.all(agents.map((a) => a.close()));
    },
  };
}

export interface ProbeTarget {
  /** `http://127.0.0.1:port/probe`: answers 200 "ok". */
  probeUrl: string;
  /** `http://127.0.0.1:port/bytes/<n>`: n bytes (default 5 MB) for speed tests. */
  speedUrl: string;
  port: number;
  close(): Promise<void>;
}

const MAX_SPEED_BYTES = 50_000_000;

/** A loopback HTTP server the gateway probes and speed-tests through the demo agents. */
export async function startProbeTarget(
  options: { host?: string; port?: number; speedBytes?: number } = {},
): Promise<ProbeTarget> {
  const host = options.host ?? '127.0.0.1';
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const server = http.createServer((req, res) => {
    if (req.url === '/probe') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
      res.end('ok');
      return;
    }
    const m = /^\/bytes\/(\d{1,9})$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404);
      res.end();
      return;
    }
    const total = Math.min(Number(m[1]), MAX_SPEED_BYTES);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
    let left = total;
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    probeUrl: `${base}/probe`,
    speedUrl: `${base}/bytes/${options.speedBytes ?? 5_000_000}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
