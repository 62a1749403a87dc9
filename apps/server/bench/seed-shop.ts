/**
 * Seeds a shop of `count` agents for the market API benchmark: a realistic spread over countries
 * (a third in the US), each country's agents clustered on a few thousand real postal centres of the
 * bundled GeoNames file (synthetic places where it has none), regions and cities from the codes'
 * leading characters, a dozen home and a few mobile ISPs per country with their own /16s, clean
 * scores, activity, past sales, speed tests, open presence intervals, blacklist lookups (the clean
 * score the stars filter reads) for four in five agents, and leases: a tenth of the agents shared by
 * 1-3 customers, 2 % private, 1 % full, plus ended leases. Deterministic (seeded). Rows go in as
 * set-based INSERTs of 10,000 rows (unnest of one array per column) or INSERT … SELECT.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { DbHandle } from '@pm/db';
import { BUNDLED_POSTAL_CENTROIDS_FILE } from '@pm/geo';

/** Bump when what `seedShop` writes changes: a kept bench database of another version is seeded anew. */
export const SEED_VERSION = 2;

/** Share of the agents per country (the rest of 100 spread over OTHER). */
const WEIGHTS: Record<string, number> = {
  US: 32, GB: 7, DE: 6, CA: 5, FR: 5, IT: 4, IN: 4, MX: 3, ES: 3, PL: 3, AU: 3, AE: 2, CN: 2, BR: 3,
  RU: 2, TR: 2, PH: 1, RO: 1, SE: 1, UA: 1, JP: 2, NL: 2, KR: 1, PT: 1, BE: 1,
}; // biome-ignore format: one table
const OTHER = [
  'CZ',
  'FI',
  'IE',
  'MY',
  'NZ',
  'PK',
  'TH',
  'LT',
  'LV',
  'BG',
  'CH',
  'AR',
  'CL',
  'ZA',
  'EG',
  'NG',
];
/** Rough centres for countries the postal file does not cover. */
const CENTRES: Record<string, [number, number]> = {
  GB: [52.5, -1.5], AE: [24.5, 54.5], CN: [31, 114], BR: [-15.8, -47.9], JP: [35.7, 139.7], NL: [52.2, 5.3],
  AR: [-34.6, -58.4], CL: [-33.4, -70.6], ZA: [-26.2, 28], EG: [30, 31.2], NG: [6.5, 3.4],
}; // biome-ignore format: one table

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Place {
  zip: string;
  lat: number;
  lon: number;
}

/** Reads `perCountry` evenly spaced postal centres of each country the bundled file covers. */
async function readPlaces(countries: Set<string>, perCountry: number): Promise<Map<string, Place[]>> {
  const all = new Map<string, Place[]>();
  const lines = createInterface({
    input: createReadStream(BUNDLED_POSTAL_CENTROIDS_FILE).pipe(createGunzip()),
  });
  for await (const line of lines) {
    const [cc, zip, lat, lon] = line.split('\t');
    if (!cc || !zip || !countries.has(cc)) continue;
    const list = all.get(cc) ?? [];
    if (list.length === 0) all.set(cc, list);
    list.push({ zip, lat: Number(lat), lon: Number(lon) });
  }
  const out = new Map<string, Place[]>();
  for (const [cc, list] of all) {
    const step = Math.max(1, Math.floor(list.length / perCountry));
    out.set(
      cc,
      list.filter((_, i) => i % step === 0),
    );
  }
  return out;
}

/** Index in [0, n) with a Zipf-like skew (a few big places, a long tail). */
const skewed = (r: () => number, n: number) => Math.min(n - 1, Math.floor(n * r() ** 2.2));

interface Agent {
  id: string;
  ip: string;
  host: string;
  cc: string;
  reg: string;
  city: string;
  zip: string;
  isp: string;
  conn: string;
  lat: number;
  lon: number;
  stars: number;
  actv: number;
  online: boolean;
  isStatic: boolean;
  hasNode: boolean;
  firstSeenMs: number;
  lastSoldMs: number | null;
  speedBps: number | null;
}

/** The agents of the shop, deterministic for a count and seed. */
export async function generateAgents(count: number, seed = 1): Promise<Agent[]> {
  const r = rng(seed);
  const countries = [...Object.keys(WEIGHTS), ...OTHER];
  const weightOf = (cc: string) =>
    WEIGHTS[cc] ?? (100 - Object.values(WEIGHTS).reduce((a, b) => a + b, 0)) / OTHER.length;
  const places = await readPlaces(new Set(countries), 3000);
  const now = Date.now();
  const agents: Agent[] = [];
  const total = countries.reduce((a, cc) => a + weightOf(cc), 0);
  for (const [ci, cc] of countries.entries()) {
    const n = Math.round((count * weightOf(cc)) / total);
    const known = places.get(cc);
    const [clat, clon] = CENTRES[cc] ?? [0, 0];
    const synthetic: Place[] = Array.from({ length: 400 }, (_, i) => ({
      zip: `${cc}${String(i).padStart(3, '0')}`,
      lat: clat + (r() - 0.5) * 6,
      lon: clon + (r() - 0.5) * 8,
    }));
    const spots = known && known.length > 0 ? known : synthetic;
    for (let i = 0; i < n && agents.length < count; i++) {
      const place = spots[skewed(r, spots.length)]!;
      const head = place.zip.replace(/[^0-9A-Z]/g, '');
      const conn = r() < 0.25 ? 'cell' : 'wifi';
      const ispIndex = conn === 'cell' ? 12 + skewed(r, 3) : skewed(r, 12);
      const id = `bench-${String(agents.length + 1).padStart(6, '0')}`;
      const ip = `${20 + ((ci * 7 + ispIndex) % 200)}.${(ispIndex * 16 + Math.floor(r() * 16)) % 256}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
      const sold = r();
      agents.push({
        id,
        ip,
        host: `${conn === 'cell' ? 'mob' : 'dyn'}-${ip.replaceAll('.', '-')}.isp${ispIndex}.${cc.toLowerCase()}.example`,
        cc,
        reg: `${cc} Region ${head.slice(0, 1)}`,
        city: `${cc} City ${head.slice(0, 3)}`,
        zip: place.zip,
        isp: `${cc} ${conn === 'cell' ? 'Mobile' : 'Net'} ${ispIndex}`,
        conn,
        lat: place.lat + (r() - 0.5) * 0.02,
        lon: place.lon + (r() - 0.5) * 0.02,
        stars: Math.max(1, Math.min(10, Math.round(6 + (r() + r() + r() - 1.5) * 3))),
        actv: Math.min(1, r() ** 0.5),
        online: r() < 0.9,
        isStatic: r() < 0.02,
        hasNode: r() < 0.99,
        firstSeenMs: now - Math.floor(r() * 730) * 86_400_000,
        lastSoldMs:
          sold < 0.3
            ? now - Math.floor(r() * 30 * 86_400_000)
            : sold < 0.6
              ? now - (31 + r() * 300) * 86_400_000
              : null,
        speedBps: r() < 0.5 ? Math.floor(1e6 + r() * 5e7) : null,
      });
    }
  }
  return agents;
}

/** Inserts rows in batches through unnest(), one array parameter a column. */
async function insertBatched<T>(
  db: DbHandle,
  rows: T[],
  sql: string,
  columns: ((row: T) => unknown)[],
  batch = 10_000,
): Promise<void> {
  for (let i = 0; i < rows.length; i += batch) {
    const part = rows.slice(i, i + batch);
    await db.query(
      sql,
      columns.map((col) => part.map(col)),
    );
  }
}

/** Seeds nodes, agents, presence and leases into a migrated, empty database; returns the agents. */
export async function seedShop(db: DbHandle, count: number, seed = 1): Promise<Agent[]> {
  const agents = await generateAgents(count, seed);
  await db.query(
    `INSERT INTO gateway_nodes (id, public_host, public_ip, socks_base_port) VALUES ('bench-gw', 'gw.bench.example', '127.0.0.1', 10000)`,
  );
  await insertBatched(
    db,
    agents,
    `INSERT INTO agents (id, key_hash, node_id, ip, host, cc, reg, city, zip, isp, mob, lat, lon, conn, dev, stars, actv,
                         probe_actv, online, is_static, first_seen, last_seen, last_sold_at, speed_bps, speed_checked_at, speed_status)
     SELECT id, 'h-' || id, CASE WHEN has_node THEN 'bench-gw' END, ip, host, cc, reg, city, zip, isp, conn = 'cell', lat, lon,
            conn, CASE WHEN conn = 'cell' THEN 'android' ELSE 'other' END, stars, actv, actv, online, is_static,
            first_seen, now(), last_sold, speed, CASE WHEN speed IS NOT NULL THEN now() - interval '2 hours' END,
            CASE WHEN speed IS NOT NULL THEN 'ok' END
     FROM unnest($1::text[], $2::bool[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                 $10::float8[], $11::float8[], $12::text[], $13::int[], $14::real[], $15::bool[], $16::bool[],
                 $17::timestamptz[], $18::timestamptz[], $19::bigint[])
       AS t(id, has_node, ip, host, cc, reg, city, zip, isp, lat, lon, conn, stars, actv, online, is_static,
            first_seen, last_sold, speed)`,
    [
      (a) => a.id,
      (a) => a.hasNode,
      (a) => a.ip,
      (a) => a.host,
      (a) => a.cc,
      (a) => a.reg,
      (a) => a.city,
      (a) => a.zip,
      (a) => a.isp,
      (a) => a.lat,
      (a) => a.lon,
      (a) => a.conn,
      (a) => a.stars,
      (a) => a.actv,
      (a) => a.online,
      (a) => a.isStatic,
      (a) => new Date(a.firstSeenMs),
      (a) => (a.lastSoldMs === null ? null : new Date(a.lastSoldMs)),
      (a) => a.speedBps,
    ],
  );
  await db.query(
    `INSERT INTO agent_presence (agent_id, node_id, started_at)
     SELECT id, 'bench-gw', now() - (abs(hashtext(id)) % 172800) * interval '1 second' FROM agents WHERE online AND node_id IS NOT NULL`,
  );

  // The clean score of the address (checks.blacklists): four in five agents looked up, a tenth of
  // those on a list, their score a little off the row's seeded one (the stars filter reads this).
  await db.query(
    `INSERT INTO agent_blacklists (agent_id, ip, list_ids, error_zones, stars, checked_at)
     SELECT id, ip, CASE WHEN abs(hashtext(id || 'l')) % 10 = 0 THEN '{bench-list}'::text[] ELSE '{}'::text[] END,
            '{}'::text[], greatest(1, least(10, stars + abs(hashtext(id || 's')) % 5 - 2)),
            now() - (abs(hashtext(id)) % 86400) * interval '1 second'
     FROM agents WHERE abs(hashtext(id)) % 5 <> 0`,
  );

  // Leases: [agent, private?, active?] — shared by 1-3, private, full (4 shared), and ended history.
  const r = rng(seed + 1);
  const leases: { agentId: string; exc: boolean; active: boolean }[] = [];
  for (const a of agents) {
    const x = r();
    if (x < 0.1)
      for (let k = 1 + Math.floor(r() * 3); k > 0; k--)
        leases.push({ agentId: a.id, exc: false, active: true });
    else if (x < 0.12) leases.push({ agentId: a.id, exc: true, active: true });
    else if (x < 0.13) for (let k = 0; k < 4; k++) leases.push({ agentId: a.id, exc: false, active: true });
    if (r() < 0.2) leases.push({ agentId: a.id, exc: r() < 0.3, active: false });
  }
  const leaseId = (i: number) =>
    `${(Math.floor(i / 10000) + 46656).toString(36).slice(-4)}-${String(i % 10000).padStart(4, '0')}`;
  await insertBatched(
    db,
    leases.map((l, i) => ({ ...l, id: leaseId(i), user: `bench-user-${i % 5000}` })),
    `INSERT INTO leases (id, user_id, agent_id, exc, start, until, ended_at, socks_user, socks_pwd, node_id, purchase_price_c)
     SELECT id, u, agent_id, exc, now() - interval '2 hours',
            CASE WHEN active THEN now() + interval '22 hours' ELSE now() - interval '10 days' END,
            CASE WHEN active THEN NULL ELSE now() - interval '10 days' END, 's-' || id, 'pwd', 'bench-gw', 500
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[], $5::bool[]) AS t(id, u, agent_id, exc, active)`,
    [(l) => l.id, (l) => l.user, (l) => l.agentId, (l) => l.exc, (l) => l.active],
  );
  // The lease trigger rewrote a tenth of the agent rows: vacuum, as autovacuum would, before measuring.
  await db.query('VACUUM ANALYZE');
  return agents;
}
