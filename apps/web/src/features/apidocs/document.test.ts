import assert from 'node:assert/strict';
import { test } from 'node:test';
import { curlLine, exampleUrl, readOperations, readSocksFields, shellQuote } from './document.ts';

const DOC = {
  paths: {
    '/api/leases': {
      post: {
        operationId: 'createLease',
        summary: 'Lease',
        requestBody: { content: { 'application/json': { example: { agentID: "a'1", exc: true } } } },
        responses: { 201: { content: { 'application/json': { example: { id: 'x' } } } }, 400: {} },
      },
      get: {
        operationId: 'listLeases',
        parameters: [{ in: 'query', name: 'cursor', schema: { type: 'integer' }, example: '0' }],
        responses: {
          200: {
            content: {
              'application/json': {
                schema: {
                  properties: {
                    leases: {
                      items: {
                        properties: {
                          socks: {
                            properties: {
                              port: { type: 'integer', description: 'The base port' },
                              ports: { type: 'array', items: { type: 'integer' }, description: 'SOCKS5' },
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/api/leases/{id}/autoRenew': {
      get: {
        operationId: 'setAutoRenew',
        parameters: [
          { in: 'path', name: 'id', required: true, schema: { type: 'string' }, example: 'k7Qz-1042' },
          {
            in: 'query',
            name: 'set',
            required: true,
            schema: { type: 'string', enum: ['true', 'false'] },
            example: 'true',
          },
        ],
        responses: { 200: {} },
      },
    },
    '/token': {
      servers: [{ url: 'https://id.example.com/' }],
      post: {
        operationId: 'getToken',
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                properties: {
                  grant_type: { type: 'string', enum: ['password'] },
                  username: { type: 'string' },
                },
                required: ['username'],
              },
            },
          },
        },
        responses: { 200: {} },
      },
    },
  },
};
const ctx = {
  apiUrl: 'https://api.example.com',
  email: 'me@example.com',
  clientId: 'public-api',
};

test('the token request comes first, on the sign-in host, with its form fields', () => {
  const ops = readOperations(DOC, ctx.apiUrl);
  assert.deepEqual(
    ops.map((o) => o.operationId),
    ['getToken', 'listLeases', 'createLease', 'setAutoRenew'],
  );
  const token = ops[0]!;
  assert.equal(token.baseUrl, 'https://id.example.com');
  assert.deepEqual(
    token.params.map((p) => [p.name, p.required, p.type]),
    [
      ['grant_type', false, 'password'],
      ['username', true, 'string'],
    ],
  );
  const line = curlLine(token, ctx);
  assert.match(line, /^curl -X POST 'https:\/\/id\.example\.com\/token'/);
  assert.ok(line.includes("--data-urlencode 'username=me@example.com'"));
  assert.ok(line.includes("--data-urlencode 'client_id=public-api'"));
  // The API client is public: there is no secret to show, and none is sent.
  assert.doesNotMatch(line, /client_secret/);
});

test('curl lines use the visitor’s API address, the examples and a quoted body', () => {
  const ops = readOperations(DOC, ctx.apiUrl);
  const renew = ops.find((o) => o.operationId === 'setAutoRenew')!;
  assert.equal(exampleUrl(renew), 'https://api.example.com/api/leases/k7Qz-1042/autoRenew?set=true');
  assert.equal(renew.params[1]?.type, 'true | false');
  const buy = ops.find((o) => o.operationId === 'createLease')!;
  assert.equal(buy.answerStatus, '201');
  assert.deepEqual(buy.answerExample, { id: 'x' });
  assert.equal(
    curlLine(buy, ctx),
    `curl -X POST 'https://api.example.com/api/leases' \\\n  -H "Authorization: Bearer $TOKEN" \\\n  -H 'Content-Type: application/json' \\\n  -d '{"agentID":"a'\\''1","exc":true}'`,
  );
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
});

test('a document without paths gives no operations', () => {
  assert.deepEqual(readOperations(null, ctx.apiUrl), []);
  assert.deepEqual(readOperations({ paths: { '/x': 'nope' } }, ctx.apiUrl), []);
});

test('the lease’s connection fields come from the document, each with its description', () => {
  assert.deepEqual(readSocksFields(DOC), [
    { name: 'socks.port', type: 'integer', description: 'The base port' },
    { name: 'socks.ports', type: 'integer[]', description: 'SOCKS5' },
  ]);
  assert.deepEqual(readSocksFields({ paths: {} }), []);
});
