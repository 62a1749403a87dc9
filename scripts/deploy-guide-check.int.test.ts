/**
 * The deployment guide's commands run on namespaced hosts (scripts/deploy-guide-check.ts): root and
 * `ip netns` needed (CI has both); elsewhere skipped with the reason.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@pm/db/testing';
import { netnsAvailable } from '@pm/devnet/netns';
import { checkDeployGuide, GUIDE, readGuideBlocks } from './deploy-guide-check.ts';

const available = netnsAvailable();

test('the guide marks its commands for every process to be checked', () => {
  const blocks = readGuideBlocks(readFileSync(GUIDE, 'utf8'));
  const services = blocks.filter((b) => b.service).map((b) => b.code);
  for (const app of ['identity', 'server', 'gateway', 'agent']) {
    assert.ok(
      services.some((c) => c.includes(`apps/${app}/src/main.ts`)),
      `a service block starts apps/${app}`,
    );
  }
  assert.ok(
    services.some((c) => c.includes('--role=http')) && services.some((c) => c.includes('--role=worker')),
  );
  assert.throws(
    () => readGuideBlocks('```sh deploy-check host=nowhere\ntrue\n```\n'),
    /deploy-check needs host=/,
  );
});

describe('the guide on namespaced hosts', {
  skip: available.ok ? false : `skipped: ${!available.ok && available.reason}`,
}, () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('deploy_guide');
  });
  after(async () => {
    await db?.drop();
  });

  test('every marked command of docs/deploying.md runs, and the processes come up', {
    timeout: 240_000,
  }, async () => {
    const ms = await checkDeployGuide({ databaseUrl: db.url, log: () => {} });
    console.log(`the guide's commands ran in ${(ms / 1000).toFixed(1)} s`);
  });

  test('a failing command fails the check, naming its line', { timeout: 60_000 }, async () => {
    const markdown = 'Intro.\n\n```sh deploy-check host=admin\necho before\nfalse\n```\n';
    await assert.rejects(
      checkDeployGuide({ databaseUrl: db.url, markdown, log: () => {} }),
      /docs\/deploying\.md:3 on admin: exited 1[\s\S]*before/,
    );
  });
});
