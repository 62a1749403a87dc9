import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureClassOfReply, replyCodeForError } from './address.ts';

test("reply classes: 01 is the agent's, the target's codes and the rules' are never", () => {
  assert.equal(failureClassOfReply(0x01), 'agent');
  for (const code of [0x03, 0x04, 0x05, 0x06])
    assert.equal(failureClassOfReply(code), 'target', `code ${code}`);
  for (const code of [0x02, 0x07, 0x08]) assert.equal(failureClassOfReply(code), 'policy', `code ${code}`);
  // An unassigned code from a misbehaving agent is the agent's.
  assert.equal(failureClassOfReply(0x2a), 'agent');
});

test('every error a chosen destination can cause maps to a target or policy code', () => {
  const byDestination = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ECONNABORTED',
    'EHOSTUNREACH',
    'EHOSTDOWN',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EAI_NONAME',
    'EAI_NODATA',
    'EAI_FAIL',
    'ENODATA',
    'ENETUNREACH',
    'ENETDOWN',
    'EADDRNOTAVAIL',
    'EAFNOSUPPORT',
    'ETIMEDOUT',
    'EACCES',
    'EPERM',
    'ERR_INVALID_ARG_VALUE',
    'ERR_INVALID_IP_ADDRESS',
  ];
  for (const code of byDestination) {
    assert.notEqual(failureClassOfReply(replyCodeForError({ code })), 'agent', code);
  }
  // The agent's own trouble stays the agent's.
  for (const code of ['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM', undefined]) {
    assert.equal(failureClassOfReply(replyCodeForError({ code })), 'agent', String(code));
  }
});
