/**
 * Password guessing from outside, on every door of a node that takes a password, with the node's
 * default slow-down: a loop of wrong passwords from one address on the leases' HTTP port and on a
 * login package port's HTTP twin is slowed down as on the leases' SOCKS port (guesses per second
 * measured, each loop bounded in count and time), while the right password from another address
 * (127.0.0.2) is answered at once on both HTTP doors.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { AgentHandle } from '@pm/agent';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { waitFor } from '@pm/testkit';
import { createOverrideGeo } from '../geo/geo.ts';
import { type HttpTarget, startHttpTarget } from '../session/harness.testkit.ts';
import { httpLogin, type LoginResult, type LoginTarget, socksLogin } from '../session/raw-client.testkit.ts';
import { makeSelfSignedCert } from '../tunnel/self-signed.ts';
import {
  HTTP_OFFSET,
  insertLease,
  insertPackage,
  type TestLease,
  type TestPackage,
} from './network.testkit.ts';
import { startTestNode, type TestNode } from './node.testkit.ts';
import { connectAgent } from './package.testkit.ts';

/** Each loop stops at this many guesses or after this long, whichever comes first. */
const MAX_GUESSES = 40;
const LOOP_MS = 3000;

const NY = { cc: 'US', reg: 'New York', city: 'New York', zip: '10001', isp: 'Example Cable', mob: false };
const tls = makeSelfSignedCert();

let db: TestDatabase;
let node: TestNode;
let web: HttpTarget;
let agent: AgentHandle;
let viaHttp: TestLease;
let viaSocks: TestLease;
let pkg: TestPackage;

before(async () => {
  db = await createTestDatabase('login_slowdown');
  web = await startHttpTarget();
  // The gateway's default limiter (100 ms doubling to 5 s, 256 handshakes per source).
  node = await startTestNode(db, 'n1', {
    geo: createOverrideGeo({ '192.0.2.91': NY }),
    tls,
    served: true,
    gateway: { httpPorts: [0], httpPortOffset: HTTP_OFFSET },
  });
  const exit = await connectAgent(db, node, tls, '192.0.2.91', 'wifi');
  agent = exit.agent;
  viaHttp = await insertLease(db, exit.id, 'n1');
  viaSocks = await insertLease(db, exit.id, 'n1');
  pkg = await insertPackage(db, 'n1');
  await node.plane.packages.reload();
  const { directory } = node.plane;
  await waitFor(() => directory.findByCredentials(viaSocks.user, viaSocks.pwd) !== undefined, {
    timeoutMs: 3000,
  });
  await waitFor(() => node.gateway.authPorts().includes(pkg.ports[0]!), { timeoutMs: 3000 });
});

after(async () => {
  await agent?.close();
  await node?.gateway.close();
  await node?.plane.close();
  await web?.close();
  await db?.drop();
});

type LoginFn = (to: LoginTarget, user: string, pwd: string) => Promise<LoginResult>;

interface LoopResult {
  door: string;
  guesses: number;
  seconds: number;
  /** How long the last refusal took. */
  lastMs: number;
}

/** Wrong passwords for `user` one after another from `localAddress`, until MAX_GUESSES or LOOP_MS. */
async function guessLoop(door: string, login: LoginFn, to: LoginTarget, user: string): Promise<LoopResult> {
  const t0 = performance.now();
  let guesses = 0;
  let lastMs = 0;
  while (guesses < MAX_GUESSES && performance.now() - t0 < LOOP_MS) {
    const r = await login(to, user, `wrong-${guesses}`);
    assert.ok(r.answered && !r.ok, `${door}: guess ${guesses} refused with an answer`);
    guesses++;
    lastMs = r.ms;
  }
  return { door, guesses, seconds: (performance.now() - t0) / 1000, lastMs };
}

test('wrong passwords from one address are slowed down on the HTTP doors as on SOCKS; the right one from another is not', async (t) => {
  const twin = pkg.ports[0]! + HTTP_OFFSET;
  const httpPort = node.gateway.httpPorts[0]!;
  // One source each, at once: the doors' loops are measured side by side and do not add up.
  const loops = await Promise.all([
    guessLoop(
      'SOCKS',
      socksLogin,
      { port: node.gateway.socksPorts[0]!, localAddress: '127.0.0.11' },
      viaSocks.user,
    ),
    guessLoop('lease HTTP', httpLogin, { port: httpPort, localAddress: '127.0.0.12' }, viaHttp.user),
    guessLoop('package HTTP twin', httpLogin, { port: twin, localAddress: '127.0.0.13' }, pkg.login),
  ]);
  for (const l of loops) {
    t.diagnostic(
      `${l.door}: ${l.guesses} guesses in ${l.seconds.toFixed(2)} s (${(l.guesses / l.seconds).toFixed(1)}/s), the last answered after ${Math.round(l.lastMs)} ms`,
    );
  }
  const [socks, ...http] = loops as [LoopResult, LoopResult, LoopResult];
  for (const l of loops) {
    // 0, 100, 200, 400, 800, 1600 ms: six guesses in the first 3.1 s.
    assert.ok(l.guesses <= 8, `${l.door}: ${l.guesses} guesses in ${l.seconds.toFixed(2)} s`);
    assert.ok(l.lastMs >= 1400, `${l.door}: the last refusal took ${Math.round(l.lastMs)} ms`);
  }
  for (const l of http) {
    assert.ok(
      Math.abs(l.guesses - socks.guesses) <= 1,
      `${l.door}: ${l.guesses} guesses, SOCKS ${socks.guesses}`,
    );
  }

  // The customers themselves, from another address: answered at once (the agent fetches the page).
  const target = `127.0.0.1:${web.port}`;
  const other = { localAddress: '127.0.0.2' };
  const lease = await httpLogin({ port: httpPort, ...other }, viaHttp.user, viaHttp.pwd, target);
  const port = await httpLogin({ port: twin, ...other }, pkg.login, pkg.password, target);
  for (const [door, r] of [
    ['lease HTTP', lease],
    ['package HTTP twin', port],
  ] as const) {
    t.diagnostic(
      `${door}: the right password from 127.0.0.2 answered ${r.status} after ${Math.round(r.ms)} ms`,
    );
    assert.equal(r.status, 200, `${door}: the right password passes`);
    assert.ok(r.ms < 500, `${door}: not slowed (${Math.round(r.ms)} ms)`);
  }
  // Nor is a first wrong guess from there: the slow-down is the guessing source's.
  const fresh = await httpLogin({ port: httpPort, ...other }, 'nobody-here', 'guess');
  assert.equal(fresh.status, 407);
  assert.ok(fresh.ms < 500, `answered after ${Math.round(fresh.ms)} ms`);
});
