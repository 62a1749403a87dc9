/**
 * The customer's lease routes through the app on PostgreSQL: `GET /leases` paging and what counts
 * as active (on an injected clock), auto-renew, notes on agents, and that no route lets one
 * customer read or change another's leases or notes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENDPOINTS, LEASE_DURATION_MS, type TLease, ZLease } from '@pm/contracts';
import { buildAgent, buildLease, buildNode } from '@pm/db/testing';
import { createTestApp, type TestApp } from '../../test/app.ts';
import { buildCustomer, postLease, setFlatPrices, type TestCustomer } from '../../test/market.ts';
import { callRoute, callRouteUnchecked } from '../../test/route.ts';

let t: TestApp;
let nodeId: string;
let clockMs = Date.now();
let alice: TestCustomer;
let bob: TestCustomer;

before(async () => {
  t = await createTestApp('lease_routes', { payments: false, now: () => clockMs });
  nodeId = (await buildNode(t.db)).id;
  await setFlatPrices(t, 500, 200);
  alice = await buildCustomer(t, 100_000, 'alice');
  bob = await buildCustomer(t, 100_000, 'bob');
});
after(async () => {
  await t?.close();
});

async function buy(who: TestCustomer, exc = false): Promise<TLease> {
  const agent = await buildAgent(t.db, { nodeId });
  const res = await postLease(t, who, { agentID: agent.id, expPriceC: exc ? 500 : 200, exc });
  assert.equal(res.statusCode, 201, res.body);
  return ZLease.parse(res.json());
}

async function listAll(who: TestCustomer, limit: number): Promise<{ pages: number; leases: TLease[] }> {
  const leases: TLease[] = [];
  let cursor = 0;
  let pages = 0;
  do {
    const page = (
      await callRoute(t, ENDPOINTS.listLeases, { query: { cursor, limit }, headers: who.headers })
    ).ok();
    leases.push(...page.leases);
    cursor = page.cursor;
    pages++;
    assert.ok(pages < 20, 'paging ends');
  } while (cursor !== 0);
  return { pages, leases };
}

// `set` and `note` as given: the tests also send values the schemas refuse.
const patchAutoRenew = (who: TestCustomer, id: string, set: string) =>
  callRouteUnchecked(t, ENDPOINTS.setAutoRenew, { params: { id }, query: { set }, headers: who.headers });
const putNote = (who: TestCustomer, agentId: string, note: unknown) =>
  callRouteUnchecked(t, ENDPOINTS.setAgentNote, {
    params: { agentId },
    headers: who.headers,
    body: { note },
  });
const deleteNote = (who: TestCustomer, agentId: string) =>
  callRoute(t, ENDPOINTS.deleteAgentNote, { params: { agentId }, headers: who.headers });

describe('GET /leases', () => {
  test("pages through the caller's active leases, newest first, until the cursor is 0", async () => {
    const c = await buildCustomer(t, 10_000, 'pager');
    const bought: string[] = [];
    for (let i = 0; i < 5; i++) {
      clockMs += 1000;
      bought.push((await buy(c, i % 2 === 0)).id);
    }
    const { pages, leases } = await listAll(c, 2);
    assert.equal(pages, 3);
    assert.deepEqual(
      leases.map((l) => l.id),
      bought.toReversed(),
    );
    assert.ok(leases.every((l) => l.user === c.userId));
    assert.deepEqual((await listAll(c, 100)).pages, 1);
  });

  test('ended leases and leases past their end (on the injected clock) are not listed', async () => {
    const c = await buildCustomer(t, 10_000, 'ender');
    const kept = await buy(c);
    const ended = await buy(c);
    await t.db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [ended.id]);
    const agent = await buildAgent(t.db, { nodeId });
    const short = await buildLease(t.db, agent.id, { userId: c.userId, untilMs: clockMs + 60_000 });
    assert.deepEqual((await listAll(c, 50)).leases.map((l) => l.id).sort(), [kept.id, short.id].sort());
    // A minute later the short lease's time is up; a day later the bought one's too.
    clockMs += 61_000;
    assert.deepEqual(
      (await listAll(c, 50)).leases.map((l) => l.id),
      [kept.id],
    );
    clockMs += LEASE_DURATION_MS;
    assert.deepEqual((await listAll(c, 50)).leases, []);
    clockMs -= LEASE_DURATION_MS + 61_000;
  });

  test('bad paging parameters are 400s naming them; no token is 401', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=-1', 'cursor'],
      ['cursor=abc', 'cursor'],
      ['other=1', 'other'],
    ]) {
      const res = await callRouteUnchecked(t, ENDPOINTS.listLeases, {
        query: Object.fromEntries(new URLSearchParams(query)),
        headers: alice.headers,
      });
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().field, field);
    }
    assert.equal((await callRoute(t, ENDPOINTS.listLeases)).statusCode, 401);
  });
});

describe('PATCH /leases/{id}/autoRenew', () => {
  test('the owner turns it on and off and gets the lease back', async () => {
    const lease = await buy(alice);
    const on = await patchAutoRenew(alice, lease.id, 'true');
    assert.equal(on.statusCode, 200, on.body);
    assert.equal(ZLease.parse(on.json()).autoRenew, true);
    const listed = (await listAll(alice, 100)).leases.find((l) => l.id === lease.id);
    assert.equal(listed?.autoRenew, true);
    const off = await patchAutoRenew(alice, lease.id, 'false');
    assert.equal(ZLease.parse(off.json()).autoRenew, false);
  });

  test('an ended lease is 409 leaseEnded; set must be true or false', async () => {
    const lease = await buy(alice);
    assert.equal((await patchAutoRenew(alice, lease.id, 'yes')).json().field, 'set');
    await t.db.query('UPDATE leases SET ended_at = now() WHERE id = $1', [lease.id]);
    const res = await patchAutoRenew(alice, lease.id, 'true');
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().errorCode, 'leaseEnded');
  });
});

describe('PUT and DELETE /agentnotes/{agentId}', () => {
  test("the note is trimmed and shown on every one of the caller's leases on the agent; empty deletes", async () => {
    const lease = await buy(alice);
    const res = await putNote(alice, lease.agentId, '  my fast one \n');
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    const noteOf = async () => (await listAll(alice, 100)).leases.find((l) => l.id === lease.id)?.note;
    assert.equal(await noteOf(), 'my fast one');
    assert.equal((await putNote(alice, lease.agentId, 'x'.repeat(200))).statusCode, 204);
    assert.equal(await noteOf(), 'x'.repeat(200));
    assert.equal((await putNote(alice, lease.agentId, '   ')).statusCode, 204);
    assert.equal(await noteOf(), '');
    assert.equal((await putNote(alice, lease.agentId, 'again')).statusCode, 204);
    assert.equal((await deleteNote(alice, lease.agentId)).statusCode, 204);
    assert.equal(await noteOf(), '');
    // Deleting when there is none is fine.
    assert.equal((await deleteNote(alice, lease.agentId)).statusCode, 204);
  });

  test('over 200 characters or not a string is a 400 naming note', async () => {
    const lease = await buy(alice);
    for (const note of ['y'.repeat(201), 5, null]) {
      const res = await putNote(alice, lease.agentId, note);
      assert.equal(res.statusCode, 400, String(note));
      assert.equal(res.json().field, 'note');
    }
  });

  test('notes are per user: two sharers of one agent each see only their own', async () => {
    const agent = await buildAgent(t.db, { nodeId });
    const mine = ZLease.parse(
      (await postLease(t, alice, { agentID: agent.id, expPriceC: 200, exc: false })).json(),
    );
    const theirs = ZLease.parse(
      (await postLease(t, bob, { agentID: agent.id, expPriceC: 200, exc: false })).json(),
    );
    assert.equal((await putNote(alice, agent.id, 'alice here')).statusCode, 204);
    assert.equal((await putNote(bob, agent.id, 'bob here')).statusCode, 204);
    assert.equal((await deleteNote(bob, agent.id)).statusCode, 204);
    assert.equal((await listAll(alice, 100)).leases.find((l) => l.id === mine.id)?.note, 'alice here');
    assert.equal((await listAll(bob, 100)).leases.find((l) => l.id === theirs.id)?.note, '');
  });
});

describe("another customer's ids answer 404 on every route", () => {
  test("bob cannot read, toggle, note or open a port on alice's lease", async () => {
    const lease = await buy(alice, true);
    assert.equal((await putNote(alice, lease.agentId, 'private matter')).statusCode, 204);

    assert.ok(
      !(await listAll(bob, 100)).leases.some((l) => l.id === lease.id || l.agentId === lease.agentId),
    );
    for (const set of ['true', 'false']) {
      const res = await patchAutoRenew(bob, lease.id, set);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().error, 'NOT_FOUND');
    }
    assert.equal((await putNote(bob, lease.agentId, 'mine now')).statusCode, 404);
    assert.equal((await deleteNote(bob, lease.agentId)).statusCode, 404);
    const port = await callRouteUnchecked(t, ENDPOINTS.createAuthPort, {
      params: { id: lease.id },
      headers: bob.headers,
      payload: JSON.stringify('127.0.0.1'),
    });
    assert.equal(port.statusCode, 404);

    // Alice's lease and note are as they were.
    const after = (await listAll(alice, 100)).leases.find((l) => l.id === lease.id);
    assert.equal(after?.autoRenew, false);
    assert.equal(after?.note, 'private matter');
    assert.equal(after?.authPort, null);
  });

  test('unknown ids are 404 too, so ids cannot be told apart', async () => {
    assert.equal((await patchAutoRenew(alice, 'zzzz-0000', 'true')).statusCode, 404);
    assert.equal((await putNote(alice, 'no-such-agent', 'x')).statusCode, 404);
    assert.equal((await deleteNote(alice, 'no-such-agent')).statusCode, 404);
  });
});
