import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { T_PING } from './frames.ts';
import { Mux } from './mux.ts';
import { RecordBudget } from './record-budget.ts';

test('writes count ceil(bytes / 16 KiB) records, reads one each; half is announced once, the limit closes', () => {
  const events: string[] = [];
  const budget = new RecordBudget(10, {
    recordsHalfSpent: () => events.push('half'),
    recordsSpent: () => events.push('spent'),
  });
  budget.wrote(40 * 1024); // 3 records sent
  budget.read(); // 1 received
  assert.deepEqual(events, []);
  budget.wrote(100);
  budget.wrote(100); // 5 sent: half, counted per direction
  assert.deepEqual(events, ['half']);
  for (let i = 0; i < 8; i++) budget.read(); // 9 received
  budget.wrote(16 * 1024 * 4); // 9 sent
  assert.deepEqual(events, ['half']);
  budget.read(); // 10 received: spent
  assert.deepEqual(events, ['half', 'spent']);
});

test('a tunnel past its record budget closes itself, having asked for renewal at half', async () => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const a = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const b = await accepted;
  server.close();
  const peer = new Mux(b, { onControl: () => {} });
  let renewDue = 0;
  const closed = new Promise<Error | undefined>((resolve) => {
    const mux = new Mux(a, {
      recordLimit: 40,
      onRenewDue: () => renewDue++,
      onControl: () => {},
      onClose: resolve,
    });
    // Each PING is read and answered in its own round trip: one record each way.
    let sent = 0;
    const ping = () => {
      if (mux.closed || sent++ > 100) return;
      mux.writeFrame(T_PING, 0, Buffer.alloc(0));
      setTimeout(ping, 1);
    };
    ping();
  });
  const err = await closed;
  assert.match(String(err), /record limit reached/);
  assert.equal(renewDue, 1);
  peer.destroy();
});
