/**
 * The demo agents' synthetic public identities: addresses from the documentation ranges (RFC 5737)
 * placed in real cities, at the GeoNames centre of a real postal code (the same centres the radius
 * search uses), with fictional ISPs. Spread so that in `npm start` every shop chip, every filter
 * and a radius search around New York (10001) find agents.
 */
import { createOverrideGeo, type GeoLookup, type Loc } from '@pm/gateway/geo/geo';

/** One demo agent: its row values and the identity the gateway is told about. */
export interface DemoIdentity {
  id: string;
  ip: string;
  loc: Loc & { lat: number; lon: number; host: string };
  conn: 'wifi' | 'cell';
  dev: 'android' | 'other';
  stars: number;
  /** Shared leases the demo's other customers hold on it from devnet start (0 to 2). */
  sharers: number;
  /** A static (datacenter) agent: its row gets `is_static`, so it sells in the static shop only. */
  static?: boolean;
}

/** Agents `npm start` runs by default: real agents, one tunnel each, about 3 MiB for 100 of them. */
export const DEMO_AGENT_COUNT = 60;

/**
 * A place and how many agents sit there: country, region (as the IP database names it; US states
 * abbreviated), city, postal code (GB outward code, CA FSA, IE routing key; AE has none), the
 * code's centre, a home and a mobile ISP, the number of agents, and the other customers' shared
 * leases on each of those agents in turn.
 */
type Place = [
  cc: string,
  reg: string,
  city: string,
  zip: string,
  lat: number,
  lon: number,
  wifiIsp: string,
  cellIsp: string,
  agents: number,
  sharers?: number[],
];

// biome-ignore format: one place a line
const PLACES: Place[] = [
  // Ten agents within 50 miles of 10001 in three states, eight of them within 10 miles.
  ['US', 'NY', 'New York', '10001', 40.7484, -73.9967, 'Hudson Fiber', 'Empire Mobile', 3, [0, 1, 0]],
  ['US', 'NY', 'Brooklyn', '11201', 40.694, -73.9903, 'Hudson Fiber', 'Liberty Wireless', 2, [0, 2]],
  ['US', 'NJ', 'Jersey City', '07302', 40.7221, -74.0469, 'Garden State Net', 'Empire Mobile', 2],
  ['US', 'NJ', 'Newark', '07102', 40.732, -74.1765, 'Garden State Net', 'Liberty Wireless', 1],
  ['US', 'CT', 'Stamford', '06901', 41.0531, -73.539, 'Nutmeg Cable', 'Empire Mobile', 1],
  ['US', 'NY', 'Yonkers', '10701', 40.9461, -73.8669, 'Hudson Fiber', 'Pacific Wireless', 1],
  ['US', 'CA', 'Los Angeles', '90012', 34.0614, -118.2385, 'Sunset Cable', 'Pacific Wireless', 2, [0, 1]],
  ['US', 'CA', 'San Francisco', '94103', 37.7725, -122.4147, 'Golden Gate Fiber', 'Pacific Wireless', 2],
  ['US', 'CA', 'San Jose', '95131', 37.3864, -121.88, 'Bayline Cable', 'Liberty Wireless', 1],
  ['US', 'TX', 'Austin', '78701', 30.2713, -97.7426, 'Lonestar Broadband', 'Liberty Wireless', 1],
  ['US', 'TX', 'Houston', '77002', 29.7594, -95.3594, 'Lonestar Broadband', 'Empire Mobile', 1],
  ['US', 'FL', 'Miami', '33131', 25.7629, -80.1895, 'Gulf Cable', 'Pacific Wireless', 2],
  ['US', 'IL', 'Chicago', '60601', 41.8858, -87.6181, 'Lakeshore Net', 'Liberty Wireless', 2],
  ['US', 'WA', 'Seattle', '98101', 47.6114, -122.3305, 'Cascade Fiber', 'Pacific Wireless', 1],
  ['US', 'GA', 'Atlanta', '30303', 33.7525, -84.3888, 'Peach State Cable', 'Empire Mobile', 1],
  ['US', 'MA', 'Boston', '02108', 42.3576, -71.0684, 'Bay State Broadband', 'Liberty Wireless', 1],
  ['GB', 'England', 'London', 'EC1A', 51.5085, -0.1257, 'Thames Broadband', 'Albion Mobile', 1],
  ['GB', 'England', 'London', 'SW1A', 51.5018, -0.1328, 'Thames Broadband', 'Albion Mobile', 1, [1]],
  ['GB', 'England', 'Manchester', 'M1', 53.4809, -2.2374, 'Pennine Net', 'Albion Mobile', 1],
  ['GB', 'Scotland', 'Glasgow', 'G1', 55.8651, -4.2576, 'Clyde Fibre', 'Albion Mobile', 1],
  ['GB', 'Wales', 'Cardiff', 'CF10', 51.48, -3.18, 'Taff Broadband', 'Albion Mobile', 1],
  ['AE', 'Dubai', 'Dubai', '', 25.2048, 55.2708, 'Gulfnet Home', 'Desert Mobile', 2, [0, 1]],
  ['AE', 'Abu Dhabi', 'Abu Dhabi', '', 24.4539, 54.3773, 'Corniche Net', 'Desert Mobile', 1],
  ['CA', 'Ontario', 'Toronto', 'M5H', 43.6496, -79.3833, 'Maple Cable', 'Northern Wireless', 2, [0, 2]],
  ['CA', 'Quebec', 'Montreal', 'H2Y', 45.5057, -73.555, 'Laurentian Net', 'Northern Wireless', 1],
  ['CA', 'British Columbia', 'Vancouver', 'V6B', 49.2788, -123.1139, 'Pacific Shore Cable', 'Northern Wireless', 1],
  ['IT', 'Lazio', 'Rome', '00184', 41.8919, 12.5113, 'Tevere Fibra', 'Italia Mobile', 1],
  ['IT', 'Lombardy', 'Milan', '20121', 45.4643, 9.1895, 'Navigli Net', 'Italia Mobile', 2, [0, 1]],
  ['IT', 'Campania', 'Naples', '80133', 40.8522, 14.2681, 'Vesuvio Net', 'Italia Mobile', 1],
  ['CN', 'Beijing', 'Beijing', '100000', 39.9075, 116.3972, 'Capital Broadband', 'Dragon Mobile', 1],
  ['CN', 'Shanghai', 'Shanghai', '200000', 31.2222, 121.4581, 'Huangpu Net', 'Dragon Mobile', 1],
  ['CN', 'Guangdong', 'Shenzhen', '518000', 22.5455, 114.0683, 'Pearl River Net', 'Dragon Mobile', 1],
  ['DE', 'Berlin', 'Berlin', '10115', 52.5323, 13.3846, 'Spree Kabel', 'Rhein Mobilfunk', 1],
  ['DE', 'Bavaria', 'Munich', '80331', 48.1345, 11.571, 'Isar Net', 'Rhein Mobilfunk', 1],
  ['DE', 'Hamburg', 'Hamburg', '20095', 53.5494, 10.0059, 'Elbe Kabel', 'Rhein Mobilfunk', 1, [1]],
  ['FR', 'Île-de-France', 'Paris', '75001', 48.8563, 2.3453, 'Seine Fibre', 'Hexagone Mobile', 2],
  ['FR', 'Auvergne-Rhône-Alpes', 'Lyon', '69001', 45.758, 4.8406, 'Rhone Net', 'Hexagone Mobile', 1],
  ['AU', 'New South Wales', 'Sydney', '2000', -33.8643, 151.2049, 'Harbour Broadband', 'Southern Cross Mobile', 1],
  ['AU', 'Victoria', 'Melbourne', '3000', -37.814, 144.9633, 'Yarra Net', 'Southern Cross Mobile', 1],
  ['IN', 'Delhi', 'New Delhi', '110001', 28.6374, 77.2182, 'Yamuna Net', 'Ganga Mobile', 1],
  ['IN', 'Maharashtra', 'Mumbai', '400001', 18.9474, 72.8138, 'Marine Drive Broadband', 'Ganga Mobile', 1],
  ['PL', 'Mazovia', 'Warsaw', '00-002', 52.2358, 21.0101, 'Vistula Net', 'Polska Mobile', 1],
  ['SE', 'Stockholm', 'Stockholm', '111 20', 59.3326, 18.0649, 'Malaren Fiber', 'Nordic Mobile', 1],
  ['MX', 'Mexico City', 'Mexico City', '06000', 19.4261, -99.1617, 'Azteca Cable', 'Sol Wireless', 1],
  ['ES', 'Madrid', 'Madrid', '28001', 40.4255, -3.6834, 'Manzanares Fibra', 'Meseta Mobile', 1],
  ['PT', 'Lisbon', 'Lisbon', '1000-001', 38.7167, -9.1333, 'Tejo Fibra', 'Atlantico Mobile', 1],
  ['IE', 'Leinster', 'Dublin', 'D01', 53.354, -6.2545, 'Liffey Broadband', 'Emerald Mobile', 1],
  ['LV', 'Riga', 'Riga', 'LV-1050', 56.946, 24.1059, 'Daugava Net', 'Baltic Mobile', 1],
];

interface Slot {
  place: Place;
  sharers: number;
}

/**
 * The places' agents in start order: every other one in the US (the shop's default country), the
 * rest taking turns by country in the order of the shop's chips; within a country, one agent per
 * place before any place gets a second. So a small count still spans countries and cities.
 */
function slots(): Slot[] {
  const byCountry = new Map<string, Slot[]>();
  const maxAgents = Math.max(...PLACES.map((p) => p[8]));
  for (let round = 0; round < maxAgents; round++) {
    for (const place of PLACES) {
      if (round >= place[8]) continue;
      const list = byCountry.get(place[0]) ?? [];
      list.push({ place, sharers: place[9]?.[round] ?? 0 });
      byCountry.set(place[0], list);
    }
  }
  const us = byCountry.get('US') ?? [];
  const others = [...byCountry].filter(([cc]) => cc !== 'US').map(([, list]) => list);
  const rest: Slot[] = [];
  for (let round = 0; round < maxAgents * PLACES.length; round++) {
    for (const list of others) if (round < list.length) rest.push(list[round]!);
  }
  const out: Slot[] = [];
  while (us.length > 0 || rest.length > 0) {
    if (us.length > 0) out.push(us.shift()!);
    if (rest.length > 0) out.push(rest.shift()!);
  }
  return out;
}

const RANGES = ['192.0.2', '198.51.100', '203.0.113'];

const slug = (s: string) =>
  s
    .normalize('NFD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

/**
 * The demo identities, deterministic for a given count: the places' agents in start order (past
 * the table's 60 it starts over with fresh addresses and no sharers). Within each country the
 * second of every three agents is a cell (Android) agent, and clean scores run through 1-10.
 */
export function demoIdentities(count = DEMO_AGENT_COUNT): DemoIdentity[] {
  const order = slots();
  const perCountry = new Map<string, number>();
  const out: DemoIdentity[] = [];
  for (let i = 0; i < count; i++) {
    const cycle = Math.floor(i / order.length);
    const slot = order[i % order.length]!;
    const [cc, reg, city, zip, lat, lon, wifiIsp, cellIsp] = slot.place;
    const j = perCountry.get(cc) ?? 0;
    perCountry.set(cc, j + 1);
    const conn = j % 3 === 1 ? 'cell' : 'wifi';
    const isp = conn === 'cell' ? cellIsp : wifiIsp;
    const ip = `${RANGES[i % RANGES.length]}.${10 + Math.floor(i / RANGES.length)}`;
    out.push({
      id: `demo-${String(i + 1).padStart(2, '0')}`,
      ip,
      loc: {
        cc,
        reg,
        city,
        zip,
        isp,
        mob: conn === 'cell',
        lat,
        lon,
        host: `${conn === 'cell' ? 'mob' : 'dyn'}-${ip.replaceAll('.', '-')}.${slug(isp)}.example`,
      },
      conn,
      dev: conn === 'cell' || i % 4 === 0 ? 'android' : 'other',
      stars: 1 + ((j * 7 + cc.charCodeAt(0)) % 10),
      sharers: cycle === 0 ? slot.sharers : 0,
    });
  }
  return out;
}

/**
 * A static place: country, region, city, postal code, the code's centre, a datacenter ISP and
 * its number of agents.
 */
type StaticPlace = [
  cc: string,
  reg: string,
  city: string,
  zip: string,
  lat: number,
  lon: number,
  isp: string,
  agents: number,
];

// biome-ignore format: one place a line
const STATIC_PLACES: StaticPlace[] = [
  ['US', 'VA', 'Ashburn', '20147', 39.0373, -77.4805, 'Potomac Datacenters', 1],
  ['US', 'CA', 'San Jose', '95131', 37.3864, -121.88, 'Valley Colo', 1],
  ['CA', 'Ontario', 'Toronto', 'M5H', 43.6496, -79.3833, 'Maple Colo', 2],
  ['GB', 'England', 'London', 'EC1A', 51.5085, -0.1257, 'Docklands Hosting', 2],
  ['AU', 'New South Wales', 'Sydney', '2000', -33.8643, 151.2049, 'Harbour Hosting', 1],
  ['DE', 'Hesse', 'Frankfurt', '60311', 50.1112, 8.6831, 'Main Rechenzentrum', 2],
  ['FR', 'Île-de-France', 'Paris', '75001', 48.8563, 2.3453, 'Seine Hebergement', 1],
  ['NL', 'North Holland', 'Amsterdam', '1012', 52.3731, 4.8922, 'Amstel Hosting', 1],
  ['JP', 'Tokyo', 'Tokyo', '100-0001', 35.6836, 139.7539, 'Edo Datacenter', 1],
];

/**
 * The static demo agents (datacenter exits, on top of `demoIdentities`): two in the US and one or
 * two in each other quick country of the static shop (US, CA, GB, AU, DE, FR), plus NL and JP.
 * Addresses from 203.0.113.200 up, above any residential demo address (those stay below .90 for
 * 200 agents). Wifi (fixed line), not Android, not shared.
 */
export function demoStaticIdentities(): DemoIdentity[] {
  const out: DemoIdentity[] = [];
  for (const [cc, reg, city, zip, lat, lon, isp, agents] of STATIC_PLACES) {
    for (let k = 0; k < agents; k++) {
      const n = out.length;
      const ip = `203.0.113.${200 + n}`;
      out.push({
        id: `demo-static-${String(n + 1).padStart(2, '0')}`,
        ip,
        loc: {
          cc,
          reg,
          city,
          zip,
          isp,
          mob: false,
          lat,
          lon,
          host: `static-${ip.replaceAll('.', '-')}.${slug(isp)}.example`,
        },
        conn: 'wifi',
        dev: 'other',
        stars: 6 + ((n * 3) % 5),
        sharers: 0,
        static: true,
      });
    }
  }
  return out;
}

/** The gateway's location lookup for the demo identities (its override map), over `fallback`. */
export function demoGeo(identities: DemoIdentity[] = demoIdentities(), fallback?: GeoLookup): GeoLookup {
  return createOverrideGeo(new Map(identities.map((d) => [d.ip, d.loc])), fallback);
}
