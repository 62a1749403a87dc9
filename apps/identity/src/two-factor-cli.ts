/**
 * The operator's way back into a locked-out account (docs/deploying.md, "Two-factor sign-in"):
 *   node apps/identity/src/two-factor-cli.ts reset EMAIL --reason "why"
 * turns the account's two-factor sign-in off and ends its sessions, with an `audit_log` row
 * (`user.twoFactorReset`, actor `operator:<login name>`, the reason). A staff account is then sent
 * to enrol again at its next sign-in. DATABASE_URL (or DATA_DIR for PGlite) selects the database.
 */
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { PERMISSION_UPDATE_STAFF } from '@pm/contracts';
import { createDb } from '@pm/db';
import { createStaffService } from './staff.service.ts';
import { createUsersRepository } from './users.repository.ts';

const USAGE =
  'usage: two-factor-cli.ts reset EMAIL --reason "why" (DATABASE_URL or DATA_DIR selects the database)';

const { values, positionals } = parseArgs({
  options: { reason: { type: 'string' } },
  allowPositionals: true,
});
const [command, email] = positionals;
if (command !== 'reset' || !email || !values.reason?.trim()) {
  console.error(USAGE);
  process.exit(2);
}
const db = await createDb({
  databaseUrl: process.env.DATABASE_URL,
  dataDir: process.env.DATA_DIR ?? './data',
  maxConnections: 1,
});
try {
  const staff = createStaffService({
    repo: createUsersRepository(db.db),
    mailer: { send: async () => {}, close: () => {} },
    issuer: () => '',
    appUrl: '',
  });
  // The operator stands above staff: the same change staff make, allowed on staff accounts too.
  const caller = { userId: `operator:${userInfo().username}`, permissions: [PERMISSION_UPDATE_STAFF] };
  const done = await staff.resetTwoFactor(caller, { email, reason: values.reason });
  process.stdout.write(`two-factor sign-in is off for ${done.email}; its sessions ended\n`);
} catch (e) {
  console.error(`two-factor-cli: ${(e as { userMessage?: string }).userMessage ?? (e as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
