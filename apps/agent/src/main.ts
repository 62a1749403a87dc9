/**
 * Agent CLI:
 *   node apps/agent/src/main.ts --gateway host:port --key KEY [--tls] [--ca file] [--insecure]
 *     [--conn wifi|cell] [--dev android|other] [--allow-loopback] [--allow-private]
 *     [--max-streams N] [--ip-override IP]
 * The key may also come from the AGENT_KEY environment variable (keeps it out of `ps`).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startAgent } from './agent.ts';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string' },
    key: { type: 'string' },
    tls: { type: 'boolean', default: false },
    ca: { type: 'string' },
    insecure: { type: 'boolean', default: false },
    conn: { type: 'string', default: 'wifi' },
    dev: { type: 'string', default: 'other' },
    'allow-loopback': { type: 'boolean', default: false },
    'allow-private': { type: 'boolean', default: false },
    'max-streams': { type: 'string' },
    'ip-override': { type: 'string' },
  },
});

const key = values.key ?? process.env.AGENT_KEY;
const match = /^(.+):(\d+)$/.exec(values.gateway ?? '');
if (!match || !key) {
  console.error(
    'usage: main.ts --gateway host:port --key KEY [--tls] [--ca file] [--conn wifi|cell] [--dev android|other] [--allow-loopback]',
  );
  process.exit(2);
}
if (values.conn !== 'wifi' && values.conn !== 'cell') throw new Error('--conn must be wifi or cell');
if (values.dev !== 'android' && values.dev !== 'other') throw new Error('--dev must be android or other');

const agent = startAgent({
  gateway: { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(match[2]) },
  key,
  tls:
    values.tls || values.ca
      ? { ca: values.ca ? readFileSync(values.ca) : undefined, insecure: values.insecure }
      : undefined,
  conn: values.conn,
  dev: values.dev,
  allowLoopback: values['allow-loopback'],
  allowPrivate: values['allow-private'],
  maxStreams: values['max-streams'] ? Number(values['max-streams']) : undefined,
  ipOverride: values['ip-override'],
  log: (msg, fields) => console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields })),
});

const shutdown = () => {
  void agent.close().then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
