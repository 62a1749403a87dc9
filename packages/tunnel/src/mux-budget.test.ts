/**
 * A stream's byte allowance (`MuxStream.allowance`, `StreamBudget`): both directions spend it per
 * chunk, an overdraft asks the budget, and a stream the budget cannot cover relays exactly what
 * was covered and is reset. A stream without a budget is unlimited.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { encodeAddress } from './address.ts';
import { T_OPEN } from './frames.ts';
import { Mux, type MuxStream, type StreamBudget } from './mux.ts';

/** A budget of `total` bytes handed out `grant` at a time. */
function fixedBudget(total: number, grant: number): StreamBudget & { left: number; asked: number } {
  return {
    left: total,
    asked: 0,
    refill(st: MuxStream) {
      this.asked++;
      const got = Math.max(0, Math.min(grant - st.allowance, this.left));
      this.left -= got;
      st.allowance += got;
      return st.allowance >= 0;
    },
  };
}

async function socketPair(): Promise<[net.Socket, net.Socket]> {
  const server = net.createServer({ allowHalfOpen: true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const a = net.connect({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });
  const b = await accepted;
  await new Promise<void>((r) => (a.connecting ? a.once('connect', r) : r()));
  server.close();
  return [a, b];
}

const CHUNK = Buffer.alloc(64 * 1024, 7);
let source: net.Server;
let sink: net.Server;
let sinkReceived = 0;
const targets = new Set<net.Socket>();
const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;

before(async () => {
  source = net.createServer((s) => {
    targets.add(s);
    s.on('error', () => {});
    const pump = () => {
      while (!s.destroyed && s.write(CHUNK));
    };
    s.on('drain', pump);
    pump();
  });
  sink = net.createServer((s) => {
    targets.add(s);
    s.on('error', () => {});
    s.on('data', (d: Buffer) => {
      sinkReceived += d.length;
    });
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
});
after(async () => {
  for (const s of targets) s.destroy();
  await new Promise<void>((r) => source.close(() => r()));
  await new Promise<void>((r) => sink.close(() => r()));
});

/** A gateway-side Mux whose agent side connects each OPEN to the loopback port asked for. */
async function gatewayMux(): Promise<Mux> {
  const [a, b] = await socketPair();
  const agent: Mux = new Mux(b, {
    onControl: (type, id, payload) => {
      if (type !== T_OPEN) return;
      const st = agent.accept(id);
      const t = net.connect({ host: '127.0.0.1', port: payload.readUInt16BE(payload.length - 2) });
      t.on('connect', () => {
        agent.answerOpen(st, 0);
        agent.attach(st, t);
      });
      t.on('error', () => agent.answerOpen(st, 5));
    },
  });
  return new Mux(a, { onControl: () => {} });
}

/** Opens a stream to `port` with `budget` (first grant `first`) bound to a customer socket; returns both ends. */
async function openBudgeted(gateway: Mux, port: number, budget: StreamBudget | null, first: number) {
  const [customer, inner] = await socketPair();
  customer.on('error', () => {});
  const st = await new Promise<MuxStream>((resolve, reject) => {
    const s = gateway.open(encodeAddress('127.0.0.1', port), (code) => {
      if (code !== 0) return reject(new Error(`open ${code}`));
      gateway.attach(s, inner);
      resolve(s);
    });
    if (budget) {
      s.allowance = first;
      s.budget = budget;
    }
  });
  // Cut within 5 s, or the budget let it run on.
  const closed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the stream was not cut')), 5000);
    customer.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { st, customer, closed };
}

test('a download stops at exactly what the budget covered, then the stream is reset', async () => {
  const gateway = await gatewayMux();
  const budget = fixedBudget(1_000_000, 100_000);
  let received = 0;
  const { st, customer, closed } = await openBudgeted(gateway, portOf(source), budget, 50_000);
  customer.on('data', (d: Buffer) => {
    received += d.length;
  });
  await closed.finally(() => setTimeout(() => gateway.destroy(), 10));
  assert.equal(st.recvBytes, 1_050_000, 'relayed: the first grant and the whole budget, not a byte more');
  assert.ok(received <= 1_050_000);
  assert.equal(budget.left, 0);
  assert.equal(st.closed, true);
  assert.equal(st.end, 'reset');
  assert.ok(budget.asked >= 5, `asked ${budget.asked} times`);
});

test('an upload spends the same allowance and is cut at it', async () => {
  const gateway = await gatewayMux();
  const budget = fixedBudget(200_000, 64 * 1024);
  const before = sinkReceived;
  const { st, customer, closed } = await openBudgeted(gateway, portOf(sink), budget, 10_000);
  const write = () => {
    while (!customer.destroyed && customer.write(CHUNK));
  };
  customer.on('drain', write);
  write();
  await closed.finally(() => setTimeout(() => gateway.destroy(), 200));
  assert.equal(st.sentBytes, 210_000);
  await new Promise((r) => setTimeout(r, 100)); // sleeps: nothing may reach the target after the cut; absence needs a window
  assert.ok(sinkReceived - before <= 210_000, `the target got ${sinkReceived - before}`);
});

test('a stream without a budget is not limited', async () => {
  const gateway = await gatewayMux();
  let received = 0;
  const { st, customer, closed } = await openBudgeted(gateway, portOf(source), null, 0);
  closed.catch(() => {});
  customer.on('data', (d: Buffer) => {
    received += d.length;
  });
  await waitFor(() => received >= 3_000_000, { timeoutMs: 10_000, intervalMs: 10, what: '3 MB received' });
  assert.equal(st.allowance, Number.POSITIVE_INFINITY);
  assert.equal(st.closed, false);
  customer.destroy();
  gateway.destroy();
});
