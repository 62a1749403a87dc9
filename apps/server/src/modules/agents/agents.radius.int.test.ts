import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, ZAgentListResponse, ZErrorBody } from '@pm/contracts';
import { buildAgent, buildNode, newUserId } from '@pm/db/testing';
import { haversineMiles, lookupPostal } from '@pm/geo';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let headers: Record<string, string>;

/** Agents at real postal centres, named by code, with their miles from 10001 (US) or M5H (CA). */
const US_PLACES = [
  ['10001', 'New York', 0],
  ['07302', 'Jersey City', 3.2],
  ['11201', 'Brooklyn', 3.8],
  ['10701', 'Yonkers', 15.3],
  ['06901', 'Stamford', 31.9],
  ['08540', 'Princeton', 42.9],
  ['19103', 'Philadelphia', 82.9],
] as const;
const CA_PLACES = [
  ['M5H', 'Toronto', 0],
  ['M4C', 'Toronto', 4.6],
  ['L5B', 'Mississauga', 13.4],
  ['L8P', 'Hamilton', 37.5],
  ['N2L', 'Waterloo', 59.5],
  ['K1A', 'Ottawa', 218.7],
] as const;

before(async () => {
  t = await createTestApp('agents_radius');
  headers = await t.auth(newUserId());
  const node = await buildNode(t.db);
  const centre = (await lookupPostal('US', '10001'))!;
  for (const [cc, places] of [
    ['US', US_PLACES],
    ['CA', CA_PLACES],
  ] as const) {
    for (const [zip, city, miles] of places) {
      const at = (await lookupPostal(cc, zip))!;
      const from = (await lookupPostal(cc, places[0][0]))!;
      assert.ok(Math.abs(haversineMiles(from, at) - miles) < 0.1, `${zip} is ${miles} miles out`);
      await buildAgent(t.db, {
        id: `${cc}-${zip}`,
        cc,
        city,
        zip,
        nodeId: node.id,
        lat: at.lat,
        lon: at.lon,
        conn: zip === '11201' ? 'cell' : 'wifi',
      });
    }
  }
  // Inside the 10-mile box around 10001 but 11.3 miles away (8 north, 8 east): only the exact distance leaves it out.
  const corner = {
    lat: centre.lat + 8 / 69.09,
    lon: centre.lon + 8 / (69.09 * Math.cos((centre.lat * Math.PI) / 180)),
  };
  assert.ok(haversineMiles(centre, corner) > 11 && haversineMiles(centre, corner) < 11.5);
  await buildAgent(t.db, {
    id: 'US-corner',
    cc: 'US',
    city: 'Corner',
    zip: '11000',
    nodeId: node.id,
    ...corner,
  });
  await buildAgent(t.db, {
    id: 'US-nowhere',
    cc: 'US',
    city: 'Unknown',
    nodeId: node.id,
    lat: null,
    lon: null,
  });
});
after(async () => {
  await t?.close();
});

/** `GET /agents` with the query as the shop's address bar writes it (refused values too). */
const listAgents = (query: string) =>
  callRouteUnchecked(t, ENDPOINTS.listAgents, {
    query: Object.fromEntries(new URLSearchParams(query)),
    headers,
  });

async function idsWithin(cc: string, geozip: string, georad: number, extra = ''): Promise<string[]> {
  const res = await listAgents(
    `cc=${cc}&geozip=${encodeURIComponent(geozip)}&georad=${georad}&limit=100${extra}`,
  );
  assert.equal(res.statusCode, 200, res.body);
  const body = ZAgentListResponse.parse(res.json());
  assert.equal(body.total, body.agents.length);
  return body.agents.map((a) => a.id).sort();
}
const expected = (cc: string, places: readonly (readonly [string, string, number])[], miles: number) =>
  places
    .filter(([, , m]) => m <= miles)
    .map(([zip]) => `${cc}-${zip}`)
    .sort();

describe('radius search (geozip + georad, miles around the postal centre)', () => {
  test('a US ZIP: 10 and 50 miles', async () => {
    assert.deepEqual(await idsWithin('US', '10001', 10), ['US-07302', 'US-10001', 'US-11201']);
    assert.deepEqual(
      await idsWithin('US', '10001', 50),
      [...expected('US', US_PLACES, 50), 'US-corner'].sort(),
    );
    assert.ok(!(await idsWithin('US', '10001', 50)).includes('US-19103'));
    assert.ok((await idsWithin('US', '10001', 100)).includes('US-19103'));
    assert.ok((await idsWithin('US', '10001', 15)).includes('US-corner'));
  });

  test('a CA FSA, typed in any case and with the full postal code: 10 and 50 miles', async () => {
    assert.deepEqual(await idsWithin('CA', 'M5H', 10), ['CA-M4C', 'CA-M5H']);
    assert.deepEqual(await idsWithin('CA', 'm5h 2n2', 50), ['CA-L5B', 'CA-L8P', 'CA-M4C', 'CA-M5H']);
    assert.deepEqual(await idsWithin('CA', 'M5H', 50), expected('CA', CA_PLACES, 50));
  });

  test('the exact distance, not the box, decides; agents without coordinates are never inside', async () => {
    const within10 = await idsWithin('US', '10001', 10);
    assert.ok(!within10.includes('US-corner'));
    assert.ok(!(await idsWithin('US', '10001', 100)).includes('US-nowhere'));
  });

  test('combines with the other filters and narrows the segments', async () => {
    assert.deepEqual(await idsWithin('US', '10001', 10, '&conn=wifi'), ['US-07302', 'US-10001']);
    const res = await listAgents('cc=US&geozip=10001&georad=10&segments=true');
    const { segments } = ZAgentListResponse.parse(res.json());
    assert.deepEqual(segments?.cities, ['Brooklyn', 'Jersey City', 'New York']);
  });

  test('inactive without a radius above 0: the code is then not even looked up', async () => {
    const all = await idsWithin('US', '10001', 0);
    assert.equal(all.length, US_PLACES.length + 2);
    const res = await listAgents('cc=GB&geozip=nonsense');
    assert.equal(res.statusCode, 200);
  });

  test('400 naming geozip for a code unknown in the country, or a country without radius search', async () => {
    for (const url of [
      '/agents?cc=US&geozip=00000&georad=10',
      '/agents?cc=CA&geozip=10001&georad=10',
      '/agents?cc=GB&geozip=EC1A&georad=10',
      '/agents?cc=AE&geozip=00000&georad=50',
    ]) {
      const res = await listAgents(url.slice('/agents?'.length));
      assert.equal(res.statusCode, 400, url);
      const body = ZErrorBody.parse(res.json());
      assert.equal(body.field, 'geozip', url);
      assert.equal(body.error, 'VALIDATION_FAILED');
    }
  });
});
