/**
 * The operator's command for agent keys (docs/deploying.md, "An agent"):
 *   node apps/gateway/src/agent-key-cli.ts register [--id ID]   a new agent; prints AGENT_ID= and AGENT_KEY=
 *   node apps/gateway/src/agent-key-cli.ts rotate --id ID       a new key for an agent; the old one stops working
 * DATABASE_URL selects the database. The key is printed once and stored only as its sha256.
 */
import { parseArgs } from 'node:util';
import { createDb } from '@pm/db';
import { registerAgent, rotateAgentKey } from './store/agent-keys.ts';

const USAGE =
  'usage: agent-key-cli.ts register [--id ID] | rotate --id ID (DATABASE_URL selects the database)';

const { values, positionals } = parseArgs({
  options: { id: { type: 'string' } },
  allowPositionals: true,
});
const command = positionals[0];
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error(`DATABASE_URL is not set\n${USAGE}`);
  process.exit(2);
}
if ((command !== 'register' && command !== 'rotate') || (command === 'rotate' && !values.id)) {
  console.error(USAGE);
  process.exit(2);
}
const db = await createDb({ databaseUrl, maxConnections: 1 });
try {
  const creds =
    command === 'register' ? await registerAgent(db, values.id) : await rotateAgentKey(db, values.id!);
  process.stdout.write(`AGENT_ID=${creds.id}\nAGENT_KEY=${creds.key}\n`);
} catch (e) {
  console.error(`agent-key-cli: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
