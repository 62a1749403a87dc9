import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createDb } from './client.ts';

// PostgreSQL's server default (128 MB) was a quarter of npm start's resident memory (issue 28).
test('the embedded PGlite runs with 16 MB of shared buffers, not the server default of 128 MB', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pm-pglite-'));
  const db = await createDb({ dataDir });
  try {
    assert.equal(db.kind, 'pglite');
    const [row] = await db.query<{ shared_buffers: string }>('SHOW shared_buffers');
    assert.equal(row?.shared_buffers, '16MB');
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
