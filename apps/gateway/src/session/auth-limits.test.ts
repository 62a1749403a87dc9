import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { encodeGreeting, encodeUserPass } from '../protocol/socks5.ts';
import { buildLease, startTestNetwork, type TestNetwork } from './harness.testkit.ts';

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

describe('SOCKS login slow-down and handshake cap, through the gateway', () => {
  let network: TestNetwork;
  const lease = buildLease('limits-agent');
  let port: number;

  before(async () => {
    network = await startTestNetwork({
      keys: { 'limits-key': 'limits-agent' },
      leases: [lease],
      tls: false,
      gateway: {
        handshakeTimeoutMs: 5000,
        authFailure: { baseDelayMs: 150, maxDelayMs: 2000, maxHandshakesPerSource: HANDSHAKE_CAP },
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
    await new Promise((r) => setTimeout(r, 100));
    const again = await open(port);
    again.write(encodeGreeting([2]));
    assert.deepEqual(await readBytes(again, 2), Buffer.from([5, 2]));
    for (const s of [...held, again]) s.destroy();
  });
});
