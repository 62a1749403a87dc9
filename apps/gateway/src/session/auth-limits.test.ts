import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { encodeGreeting, encodeUserPass } from '../protocol/socks5.ts';
import { buildLease, startTestNetwork, type TestNetwork } from './harness.testkit.ts';
import { httpLogin, type LoginResult, type LoginTarget, socksLogin } from './raw-client.testkit.ts';

const HANDSHAKE_CAP = 4;

/** Reads exactly `n` bytes (or null at close), within 3 s. */
function readBytes(s: net.Socket, n: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const done = (v: Buffer | null) => {
      clearTimeout(timer);
      s.off('data', onData);
      s.off('close', onClose);
      resolve(v);
    };
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= n) done(buf.subarray(0, n));
    };
    const onClose = () => done(null);
    const timer = setTimeout(() => done(null), 3000);
    s.on('data', onData);
    s.on('close', onClose);
  });
}

function open(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.on('error', reject);
  });
}

/** One RFC 1929 login; whether it was accepted and how long the answer took. */
async function login(port: number, user: string, pwd: string): Promise<{ ok: boolean; ms: number }> {
  const s = await open(port);
  try {
    s.write(encodeGreeting([2]));
    assert.deepEqual(await readBytes(s, 2), Buffer.from([5, 2]));
    const t0 = performance.now();
    s.write(encodeUserPass(user, pwd));
    const status = await readBytes(s, 2);
    return { ok: status?.[1] === 0, ms: performance.now() - t0 };
  } finally {
    s.destroy();
  }
}

describe('login slow-down and handshake cap on SOCKS and the HTTP port, through the gateway', () => {
  let network: TestNetwork;
  const lease = buildLease('limits-agent');
  /** One lease per door for the impatient guesser, whose checks its `authFails` counts. */
  const guessed = [buildLease('limits-agent'), buildLease('limits-agent')];
  let port: number;
  const doors: {
    name: string;
    port: () => number;
    login: (to: LoginTarget, user: string, pwd: string) => Promise<LoginResult>;
  }[] = [
    { name: 'SOCKS', port: () => network.gateway.socksPorts[0]!, login: socksLogin },
    { name: 'HTTP', port: () => network.gateway.httpPorts[0]!, login: httpLogin },
  ];
  /** A loopback source of its own for each door and test, so their failures never add up. */
  const sourceOf = (door: number, test: number) => `127.0.${10 + door}.${test}`;

  before(async () => {
    network = await startTestNetwork({
      keys: { 'limits-key': 'limits-agent' },
      leases: [lease, ...guessed],
      tls: false,
      gateway: {
        handshakeTimeoutMs: 5000,
        authFailure: { baseDelayMs: 150, maxDelayMs: 2000, maxHandshakesPerSource: HANDSHAKE_CAP },
        httpPorts: [0],
      },
    });
    port = network.gateway.socksPorts[0]!;
  });
  after(async () => {
    await network.close();
  });

  test("a customer's valid login between guesses does not clear the source's slow-down", async () => {
    for (let i = 0; i < 3; i++) assert.equal((await login(port, `nobody${i}`, 'guess')).ok, false);
    // The guesser holds one lease of their own and logs in with it.
    assert.equal((await login(port, lease.user, lease.pwd)).ok, true);
    const next = await login(port, 'nobody3', 'guess');
    assert.equal(next.ok, false);
    // Fourth failure of the source: 150 * 2^2 = 600 ms (it was 0 when a success cleared the address).
    assert.ok(next.ms >= 500, `answered after ${Math.round(next.ms)} ms`);
  });

  test('a source holds at most the cap of handshakes at once; a slot frees when one ends', async () => {
    const held = await Promise.all(Array.from({ length: HANDSHAKE_CAP }, () => open(port)));
    for (const s of held) s.on('error', () => {});
    const extra = await open(port);
    extra.on('error', () => {});
    const t0 = performance.now();
    extra.write(encodeGreeting([2]));
    assert.equal(await readBytes(extra, 2), null, 'closed without an answer');
    assert.ok(performance.now() - t0 < 1000, 'at once, not at the handshake timeout');
    held[0]!.destroy();
    // The slot frees when the gateway sees the close: a new handshake is answered then.
    const again = await waitFor(
      async () => {
        const s = await open(port);
        s.on('error', () => {});
        s.write(encodeGreeting([2]));
        if ((await readBytes(s, 2))?.equals(Buffer.from([5, 2]))) return s;
        s.destroy();
        return null;
      },
      { timeoutMs: 2000, what: 'a handshake slot frees' },
    );
    for (const s of [...held, again]) s.destroy();
  });

  test('a refused login holds its handshake slot until its delay is over, abandoned or not', async () => {
    for (const [d, door] of doors.entries()) {
      const to = { port: door.port(), localAddress: sourceOf(d, 1) };
      // Three failures: the next answers wait 600 ms, 1.2 s, then 2 s.
      for (let i = 0; i < 3; i++) assert.equal((await door.login(to, `held${d}-${i}`, 'guess')).ok, false);
      const t0 = performance.now();
      const abandoned = await Promise.all(
        Array.from({ length: HANDSHAKE_CAP }, (_, i) =>
          door.login({ ...to, giveUpMs: 50 }, `held${d}-x${i}`, 'guess'),
        ),
      );
      assert.ok(
        abandoned.every((r) => !r.answered),
        `${door.name}: given up before any answer`,
      );
      const busy = await door.login(to, lease.user, lease.pwd);
      assert.equal(busy.answered, false, `${door.name}: the delayed refusals still hold every slot`);
      assert.ok(busy.ms < 500, `${door.name}: closed at once, after ${Math.round(busy.ms)} ms`);
      const back = await waitFor(
        async () => {
          const r = await door.login(to, lease.user, lease.pwd);
          return r.answered && r;
        },
        { timeoutMs: 4000, intervalMs: 100, what: `${door.name}: a slot comes back` },
      );
      assert.ok(back.ok, `${door.name}: a slot came back when its delay was over`);
      assert.ok(performance.now() - t0 >= 550, `${door.name}: not before the first delay was over`);
    }
  });

  test('a guesser who gives up on each answer checks no more passwords than the slots allow', async (t) => {
    for (const [d, door] of doors.entries()) {
      const target = guessed[d]!;
      const to = { port: door.port(), localAddress: sourceOf(d, 2), giveUpMs: 30 };
      const t0 = performance.now();
      let tries = 0;
      const worker = async () => {
        while (performance.now() - t0 < 2000) {
          const r = await door.login(to, target.user, `guess-${tries++}`);
          assert.equal(r.ok, false);
          // Refused at once (source busy): do not spin.
          if (r.ms < 30) await new Promise((res) => setTimeout(res, 20)); // sleeps: a guesser's pace, in real time
        }
      };
      await Promise.all(Array.from({ length: 2 * HANDSHAKE_CAP }, worker));
      const seconds = (performance.now() - t0) / 1000;
      const checked = network.meter.authFails(target.leaseId);
      t.diagnostic(`${door.name}: ${checked} passwords checked of ${tries} tries in ${seconds.toFixed(1)} s`);
      // 4 slots; delays 0, 150, 300, 600, 1200 then 2000 ms: about 9 checks in 2 s.
      assert.ok(checked >= 4 && checked <= 16, `${door.name}: ${checked} passwords checked`);
    }
  });

  test('a guess that half-closes gets its refusal after the delay, not a close that gives it away', async () => {
    for (const [d, door] of doors.entries()) {
      const to = { port: door.port(), localAddress: sourceOf(d, 3) };
      for (let i = 0; i < 3; i++) assert.equal((await door.login(to, `eof${d}-${i}`, 'guess')).ok, false);
      const r = await door.login({ ...to, halfClose: true }, `eof${d}-x`, 'guess');
      assert.ok(r.answered && !r.ok, `${door.name}: refused with an answer`);
      // The fourth failure of the source: 150 * 2^2 = 600 ms.
      assert.ok(r.ms >= 500, `${door.name}: answered after ${Math.round(r.ms)} ms`);
    }
  });
});
