/**
 * The endpoint contract is typed at both ends (issue 35): a server handler that answers a renamed
 * field, and a web call that reads or sends one, fail `npm run typecheck`. Each case writes a small
 * file that imports a real endpoint into a temporary folder inside the app (so `@pm/contracts` and
 * the app's own modules resolve as they do for the app), runs the repository's `tsc` once on it
 * with a tsconfig that extends the app's, and reads the diagnostics. Each misspelt file has a
 * correct twin in the same run, which must compile clean: the errors come from the misspelling,
 * not from a probe that cannot compile at all.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..');
const tsc = join(root, 'node_modules/.bin/tsc');

/**
 * Type-checks `files` in a temporary folder under `dir` (a dot folder: the apps' own tsconfig
 * globs skip it, so a concurrent `npm run typecheck` never sees it) against the app's tsconfig.
 * Returns the diagnostics by file name.
 */
function typecheck(dir: string, appTsconfig: string, files: Record<string, string>): Map<string, string[]> {
  const tmp = mkdtempSync(join(root, dir, '.typecheck-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(tmp, name), text);
    const config = {
      extends: relative(tmp, join(root, appTsconfig)),
      files: Object.keys(files),
      include: [],
    };
    writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify(config));
    const run = spawnSync(tsc, ['-p', join(tmp, 'tsconfig.json'), '--noEmit', '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(run.error, undefined, `tsc did not run: ${String(run.error)}`);
    const byFile = new Map<string, string[]>(Object.keys(files).map((f) => [f, []]));
    let last: string[] | undefined;
    for (const line of `${run.stdout}${run.stderr}`.split('\n')) {
      const m = /^(?:.*[\\/])?([^\\/(]+)\(\d+,\d+\): error/.exec(line);
      if (m) {
        last = byFile.get(m[1]!);
        assert.ok(last, `an error outside the probe files: ${line}`);
        last.push(line);
      } else if (line.startsWith(' ') && last) {
        // The indented lines after an error elaborate it (which property, which type).
        last[last.length - 1] += `\n${line}`;
      }
    }
    if (run.status !== 0)
      assert.ok(
        [...byFile.values()].some((e) => e.length > 0),
        run.stdout + run.stderr,
      );
    return byFile;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const SERVER_HEAD = `import { ENDPOINTS } from '@pm/contracts';
import { registerEndpoint } from '../platform/endpoint.ts';
import type { ApiApp } from '../platform/module.ts';
`;

test('a server handler that answers a renamed field does not compile; its twin does', () => {
  const diagnostics = typecheck('apps/server/src', 'tsconfig.json', {
    'right.ts': `${SERVER_HEAD}
export function register(app: ApiApp): void {
  registerEndpoint(app, ENDPOINTS.myAddress, { handler: async (req) => ({ ip: req.ip }) });
  registerEndpoint(app, ENDPOINTS.revokeApiKey, { handler: async () => null });
}
`,
    'renamed.ts': `${SERVER_HEAD}
export function register(app: ApiApp): void {
  registerEndpoint(app, ENDPOINTS.myAddress, { handler: async (req) => ({ address: req.ip }) });
}
`,
    'code.ts': `import { AppError } from '@pm/contracts';
export const right = new AppError('CONFLICT', { details: { errorCode: 'priceChanged', price: 300 } });
export const misspelt = new AppError('CONFLICT', { details: { errorCode: 'priceChangd' } });
`,
    // A reply is thenable: returning \`reply.send(...)\` would slip any body past the return type.
    'sent.ts': `${SERVER_HEAD}
export function register(app: ApiApp): void {
  registerEndpoint(app, ENDPOINTS.myAddress, { handler: async (_req, _input, reply) => reply.send({ address: 1 }) });
}
`,
  });
  assert.deepEqual(diagnostics.get('right.ts'), []);
  const renamed = diagnostics.get('renamed.ts')!;
  assert.equal(renamed.length, 1, renamed.join('\n'));
  assert.match(
    renamed[0]!,
    /renamed\.ts\(6,\d+\).*Property 'ip' is missing in type '\{ address: string; \}'/s,
  );
  const code = diagnostics.get('code.ts')!;
  assert.equal(code.length, 1, code.join('\n'));
  assert.match(code[0]!, /code\.ts\(3,\d+\).*'"priceChangd"' is not assignable/s);
  const sent = diagnostics.get('sent.ts')!;
  assert.equal(sent.length, 1, sent.join('\n'));
  assert.match(sent[0]!, /^[^(]*sent\.ts\(6,\d+\).*Property 'send' does not exist/);
});

const WEB_HEAD = `import { ENDPOINTS } from '@pm/contracts';
import { callEndpoint } from '../lib/api/endpoint.ts';
import type { ApiClient } from '../lib/api/transport.ts';
`;

test('a web call that reads or sends a renamed field does not compile; its twin does', () => {
  const diagnostics = typecheck('apps/web/src', 'apps/web/tsconfig.json', {
    'right.ts': `${WEB_HEAD}
export async function run(api: ApiClient): Promise<string> {
  const key = await callEndpoint(api, ENDPOINTS.createApiKey, { body: { name: 'ci' } });
  await callEndpoint(api, ENDPOINTS.revokeApiKey, { params: { id: key.id } });
  await callEndpoint(api, ENDPOINTS.listApiKeys);
  return key.prefix;
}
`,
    'answer.ts': `${WEB_HEAD}
export async function run(api: ApiClient): Promise<string> {
  const key = await callEndpoint(api, ENDPOINTS.createApiKey, { body: { name: 'ci' } });
  return key.prefx;
}
`,
    'request.ts': `${WEB_HEAD}
export async function run(api: ApiClient): Promise<void> {
  await callEndpoint(api, ENDPOINTS.createApiKey, { body: { label: 'ci' } });
  await callEndpoint(api, ENDPOINTS.revokeApiKey, {});
  await callEndpoint(api, ENDPOINTS.listApiKeys, { query: { all: 'true' } });
}
`,
  });
  assert.deepEqual(diagnostics.get('right.ts'), []);
  const answer = diagnostics.get('answer.ts')!;
  assert.equal(answer.length, 1, answer.join('\n'));
  assert.match(answer[0]!, /answer\.ts\(7,\d+\).*Property 'prefx' does not exist/);
  // One error per call: the renamed body field, the missing path parameter, a query the
  // operation does not take.
  const request = diagnostics.get('request.ts')!;
  assert.deepEqual(
    request.map((e) => /request\.ts\((\d+),/.exec(e)?.[1]),
    ['6', '7', '8'],
    request.join('\n'),
  );
  assert.match(request[0]!, /'label' does not exist/);
  assert.match(request[1]!, /Property 'params' is missing/);
});

const CODES_HEAD = `import { ENDPOINTS, errorCodeOf, unhandledErrorCode } from '@pm/contracts';
`;

test("a web switch over an operation's error codes must name each code, spelt as declared", () => {
  const diagnostics = typecheck('apps/web/src', 'apps/web/tsconfig.json', {
    'right.ts': `${CODES_HEAD}
export function text(body: unknown): string {
  const code = errorCodeOf(ENDPOINTS.leaseStaticAgent, body);
  switch (code) {
    case 'agentAlreadyLeased':
    case 'agentNotFound':
    case 'priceChanged':
      return 'the proxy moved on';
    case 'notEnoughFunds':
    case 'accountBlocked':
    case 'emailNotConfirmed':
    case 'idempotencyKeyReused':
    case undefined:
      return 'failed';
    default:
      return unhandledErrorCode(code);
  }
}
`,
    'missing.ts': `${CODES_HEAD}
export function text(body: unknown): string {
  const code = errorCodeOf(ENDPOINTS.leaseStaticAgent, body);
  switch (code) {
    case 'agentAlreadyLeased':
    case 'agentNotFound':
      return 'the proxy moved on';
    case 'notEnoughFunds':
    case 'accountBlocked':
    case 'emailNotConfirmed':
    case 'idempotencyKeyReused':
    case undefined:
      return 'failed';
    default:
      return unhandledErrorCode(code);
  }
}
`,
    'misspelt.ts': `${CODES_HEAD}
export function text(body: unknown): string {
  const code = errorCodeOf(ENDPOINTS.createApiKey, body);
  switch (code) {
    case 'apiKeyLimt':
      return 'too many keys';
    default:
      return 'failed';
  }
}
`,
  });
  assert.deepEqual(diagnostics.get('right.ts'), []);
  const missing = diagnostics.get('missing.ts')!;
  assert.equal(missing.length, 1, missing.join('\n'));
  assert.match(
    missing[0]!,
    /missing\.ts\(16,\d+\).*'"priceChanged"' is not assignable to parameter of type 'never'/s,
  );
  const misspelt = diagnostics.get('misspelt.ts')!;
  assert.equal(misspelt.length, 1, misspelt.join('\n'));
  assert.match(misspelt[0]!, /misspelt\.ts\(6,\d+\).*'"apiKeyLimt"' is not comparable/s);
});
