import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readNodeEnv } from './node-env.ts';
import {
  checkPortPlan,
  DEFAULT_PORTS,
  ephemeralWarning,
  type PortPlan,
  readEphemeralRange,
} from './port-plan.ts';

const plan = (over: Partial<PortPlan> = {}): PortPlan => ({
  tunnelPort: 7000,
  metricsPort: undefined,
  socksBasePort: 10000,
  ...DEFAULT_PORTS,
  ...over,
});

test('the defaults share no port and keep every range and twin below the ephemeral range', () => {
  assert.deepEqual(checkPortPlan(plan()), []);
  assert.equal(ephemeralWarning(plan(), [32768, 60999]), null);
  // npm start's own listeners beside them.
  assert.deepEqual(
    checkPortPlan(plan({ metricsPort: 7311, others: { WEB_PORT: 7300, API_PORT: 7301 } })),
    [],
  );
});

test('an overlap stops the start with both sides named by their variables', () => {
  const cases: [Partial<PortPlan>, RegExp][] = [
    // The lease HTTP port (base + 6080) inside the package range.
    [
      { socksBasePort: 13000 },
      /GATEWAY_SOCKS_BASE_PORT \+ 6080 \(19080\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \(19000-23999\)/,
    ],
    // A twin offset smaller than the ranges: twins on the next range and on their own.
    [
      { httpPortOffset: 1000 },
      /AUTH_PORT_MIN-AUTH_PORT_MAX \+ HTTP_PORT_OFFSET \(18000-19999\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \(19000-23999\)/,
    ],
    [
      { httpPortOffset: 1000 },
      /PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \(19000-23999\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \+ HTTP_PORT_OFFSET \(20000-24999\)/,
    ],
    [{ tunnelPort: 19500 }, /GATEWAY_TUNNEL_PORT \(19500\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX/],
    [
      { metricsPort: 27001 },
      /GATEWAY_METRICS_PORT \(27001\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \+ HTTP_PORT_OFFSET/,
    ],
    [
      { authPortMax: 19000 },
      /AUTH_PORT_MIN-AUTH_PORT_MAX \(17000-19000\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX/,
    ],
    [
      { others: { WEB_PORT: 25000 } },
      /AUTH_PORT_MIN-AUTH_PORT_MAX \+ HTTP_PORT_OFFSET \(25000-26999\) overlaps WEB_PORT \(25000\)/,
    ],
  ];
  for (const [over, expected] of cases) assert.match(checkPortPlan(plan(over)).join('\n'), expected);
});

test('ranges upside down, twins past 65535 and more spares than ports are refused', () => {
  assert.match(
    checkPortPlan(plan({ packagePortMin: 24000 })).join(),
    /PACKAGE_PORT_MIN must be 1 to PACKAGE_PORT_MAX/,
  );
  assert.match(
    checkPortPlan(plan({ packagePortMin: 60000, packagePortMax: 60999 })).join(),
    /PACKAGE_PORT_MAX \+ HTTP_PORT_OFFSET must be at most 65535/,
  );
  assert.match(
    checkPortPlan(plan({ packageSparePorts: 5001 })).join(),
    /PACKAGE_SPARE_PORTS must be 0 to the 5000 ports of PACKAGE_PORT_MIN-PACKAGE_PORT_MAX/,
  );
  assert.match(checkPortPlan(plan({ httpPortOffset: 0 })).join(), /HTTP_PORT_OFFSET must be at least 1/);
  assert.match(
    checkPortPlan(plan({ socksBasePort: 60000 })).join(),
    /GATEWAY_SOCKS_BASE_PORT must be at most 59455/,
  );
});

test('ranges inside the machine ephemeral range are named in one warning', () => {
  const warning = ephemeralWarning(plan({ packagePortMin: 30000, packagePortMax: 39999 }), [32768, 60999]);
  assert.match(warning ?? '', /ephemeral range 32768-60999/);
  assert.match(warning ?? '', /PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \(30000-39999\)/);
  assert.match(warning ?? '', /PACKAGE_PORT_MIN-PACKAGE_PORT_MAX \+ HTTP_PORT_OFFSET \(38000-47999\)/);
  assert.doesNotMatch(warning ?? '', /AUTH_PORT_MIN/);
  const file = join(mkdtempSync(join(os.tmpdir(), 'ports-')), 'range');
  writeFileSync(file, '32768\t60999\n');
  assert.deepEqual(readEphemeralRange(file), [32768, 60999]);
  assert.equal(readEphemeralRange(join(file, 'missing')), undefined);
});

test('a production node reads the ranges, the twin offset and the pool from its environment and refuses overlaps', () => {
  const base = {
    DATABASE_URL: 'postgres://gw@db.internal/market',
    GATEWAY_TLS_CERT: '/etc/pm/gw.pem',
    GATEWAY_TLS_KEY: '/etc/pm/gw.key',
    GATEWAY_PUBLIC_IP: '81.2.69.160',
  };
  const ok = readNodeEnv(base);
  assert.ok(ok.ok);
  assert.deepEqual(
    [
      ok.value.authPortMin,
      ok.value.packagePortMin,
      ok.value.packagePortMax,
      ok.value.httpPortOffset,
      ok.value.packageSparePorts,
    ],
    [17000, 19000, 23999, 8000, 1000],
  );
  const set = readNodeEnv({
    ...base,
    PACKAGE_PORT_MIN: '40000',
    PACKAGE_PORT_MAX: '40999',
    HTTP_PORT_OFFSET: '2000',
    PACKAGE_SPARE_PORTS: '0',
  });
  assert.ok(set.ok);
  assert.deepEqual(
    [set.value.packagePortMin, set.value.httpPortOffset, set.value.packageSparePorts],
    [40000, 2000, 0],
  );
  const clash = readNodeEnv({ ...base, GATEWAY_SOCKS_BASE_PORT: '13000', PACKAGE_SPARE_PORTS: 'many' });
  assert.ok(!clash.ok);
  assert.match(clash.problems.join('\n'), /PACKAGE_SPARE_PORTS must be a whole number, got "many"/);
  const overlap = readNodeEnv({ ...base, GATEWAY_SOCKS_BASE_PORT: '13000' });
  assert.ok(!overlap.ok);
  assert.match(
    overlap.problems.join('\n'),
    /GATEWAY_SOCKS_BASE_PORT \+ 6080 \(19080\) overlaps PACKAGE_PORT_MIN-PACKAGE_PORT_MAX/,
  );
});
