import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@pm/testkit';
import { metricsDenied } from './gateway.ts';
import { SocksClientError, socksConnect } from './protocol/client.ts';
import { REP_NOT_ALLOWED } from './protocol/socks5.ts';
import {
  buildLease,
  type HttpTarget,
  startHttpTarget,
  startTestNetwork,
  type TestNetwork,
} from './session/harness.testkit.ts';

/** The SOCKS reply (or stage) a connect ends with: 0 for success. */
async function connectResult(opts: Parameters<typeof socksConnect>[0]): Promise<number | string> {
  try {
    const s = await socksConnect({ timeoutMs: 3000, ...opts });
    s.destroy();
    return 0;
  } catch (e) {
    if (!(e instanceof SocksClientError)) throw e;
    return e.reply ?? e.stage;
  }
}

describe("the gateway's exposure through its own agents", () => {
  let target: HttpTarget;
  let net: TestNetwork;
  const lease = buildLease('agent-1');

  before(async () => {
    target = await startHttpTarget();
    net = await startTestNetwork({
      keys: { 'key-1': 'agent-1', 'key-2': 'agent-2' },

      leases: [lease],
      tls: false,
      // The agents dial from 127.0.0.1 here: treat loopback as a real exit for this test.
      gateway: {
        refuseLoopbackAgentExits: true,
        gatewayIps: ['81.2.69.160'],
        metricsPort: 0,
        metricsToken: 's3cret',
      },
    });
  });
  after(async () => {
    await net.close();
    await target.close();
  });

  test("a customer connection from a connected agent's exit address is refused", async () => {
    const socks = {
      proxyHost: '127.0.0.1',
      proxyPort: net.gateway.socksPorts[0]!,
      host: '127.0.0.1',
      port: target.port,
    };
    assert.equal(
      await connectResult({ ...socks, user: lease.user, pwd: lease.pwd }),
      1,
      'no agent yet: the lease answers (agent offline, 0x01)',
    );
    const agent = await net.addAgent('key-1');
    assert.equal(
      await connectResult({ ...socks, user: lease.user, pwd: lease.pwd }),
      'method',
      'the agent exits from 127.0.0.1: a customer from there is closed before the greeting is answered',
    );
    await agent.close();
    await waitFor(() => net.gateway.agentsOnline().length === 0, {
      timeoutMs: 2000,
      what: 'the agent is offline',
    });
    assert.equal(
      await connectResult({ ...socks, user: lease.user, pwd: lease.pwd }),
      1,
      'the agent left: accepted again',
    );
  });

  test("agents refuse the gateway's addresses (named in WELCOME) and port 25", async () => {
    const agent = await net.addAgent('key-2', {
      restrictTo: undefined,
      lookup: (_h, cb) => cb(null, '81.2.69.160'),
    });
    // Customers from 127.0.0.1 are refused while it is an agent's exit here: ask through the gateway's own dialer.
    await assert.rejects(
      net.gateway.dial('agent-2', '81.2.69.160', 443),
      (e: { reply?: number }) => e.reply === REP_NOT_ALLOWED,
    );
    await assert.rejects(
      net.gateway.dial('agent-2', 'gw.example', 443),
      (e: { reply?: number }) => e.reply === REP_NOT_ALLOWED,
      'a name resolving to it',
    );
    await assert.rejects(
      net.gateway.dial('agent-2', '127.0.0.1', 25),
      (e: { reply?: number }) => e.reply === REP_NOT_ALLOWED,
      'port 25',
    );
    const ok = await net.gateway.dial('agent-2', '127.0.0.1', target.port);
    ok.destroy();
    await agent.close();
  });

  test('gateway /metrics: 401 without the bearer token, 403 with a wrong one, 200 with it; /healthz open', async () => {
    const url = `http://127.0.0.1:${net.gateway.metricsPort}`;
    assert.equal((await fetch(`${url}/metrics`)).status, 401);
    assert.equal((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope' } })).status, 403);
    assert.equal(
      (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer s3cret' } })).status,
      200,
    );
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.equal(metricsDenied(undefined, undefined), 0, 'no token: served (the listener is on loopback)');
  });
});
