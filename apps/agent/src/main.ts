/**
 * Agent CLI:
 *   node apps/agent/src/main.ts --gateway host:port --key KEY [--ca file] [--servername name]
 *     [--conn wifi|cell] [--dev android|other] [--allow-loopback] [--allow-private]
 *     [--max-streams N] [--ip-override IP] [--plaintext] [--refuse-ports 25,465]
 * The key may also come from the AGENT_KEY environment variable (keeps it out of `ps`), the refused
 * destination ports from AGENT_REFUSE_PORTS (default 25; an empty value refuses none). The tunnel
 * is TLS 1.3 with the gateway's certificate verified (against the system's authorities, or `--ca`);
 * `--plaintext` is accepted for a gateway on a loopback address only (the standalone benchmark).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startAgent } from './agent.ts';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string' },
    key: { type: 'string' },
    ca: { type: 'string' },
    servername: { type: 'string' },
    plaintext: { type: 'boolean', default: false },
    conn: { type: 'string', default: 'wifi' },
    dev: { type: 'string', default: 'other' },
    'allow-loopback': { type: 'boolean', default: false },
    'allow-private': { type: 'boolean', default: false },
    'max-streams': { type: 'string' },
    'ip-override': { type: 'string' },
    'refuse-ports': { type: 'string' },
  },
});

const key = values.key ?? process.env.AGENT_KEY;
const match = /^(.+):(\d+)$/.exec(values.gateway ?? '');
if (!match || !key) {
  console.error(
    'usage: main.ts --gateway host:port --key KEY [--ca file] [--servername name] [--conn wifi|cell] [--dev android|other] [--allow-loopback] [--plaintext]',
  );
  process.exit(2);
}
if (values.conn !== 'wifi' && values.conn !== 'cell') throw new Error('--conn must be wifi or cell');
if (values.dev !== 'android' && values.dev !== 'other') throw new Error('--dev must be android or other');

/** `--refuse-ports` / AGENT_REFUSE_PORTS: comma-separated ports, '' for none; unset keeps the default (25). */
function readRefusePorts(raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined;
  const ports = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map(Number);
  if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    console.error(
      `--refuse-ports / AGENT_REFUSE_PORTS must be ports 1-65535 separated by commas, got "${raw}"`,
    );
    process.exit(2);
  }
  return ports;
}

const gateway = { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) };
if (values.plaintext) {
  console.error(`agent: plaintext tunnel to ${gateway.host} (loopback only, for benchmarks and tests)`);
}
const agent = startAgent({
  gateway,
  key,
  tls: { ca: values.ca ? readFileSync(values.ca) : undefined, servername: values.servername },
  plaintext: values.plaintext,
  conn: values.conn,
  dev: values.dev,
  allowLoopback: values['allow-loopback'],
  allowPrivate: values['allow-private'],
  maxStreams: values['max-streams'] ? Number(values['max-streams']) : undefined,
  ipOverride: values['ip-override'],
  refusePorts: readRefusePorts(values['refuse-ports'] ?? process.env.AGENT_REFUSE_PORTS),
  log: (msg, fields) => console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields })),
});

const shutdown = () => {
  void agent.close().then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
