import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exitMatches } from '@pm/contracts';
import { chooseExit, narrowGeo, parseUserTargeting } from './package-exits.ts';

const all = () => true;

describe('chooseExit', () => {
  test('sticky until the timer runs out, then another exit', () => {
    const s = { agentId: undefined as string | undefined, chosenAtMs: 0, seq: -1 };
    const o = { seq: 0, timerMs: 5 * 60_000, candidates: ['a', 'b', 'c'], isOnline: all, random: () => 0 };
    assert.equal(chooseExit(s, { ...o, nowMs: 1000 }), 'a');
    assert.equal(chooseExit(s, { ...o, nowMs: 1000 + 5 * 60_000 - 1 }), 'a', 'still sticky');
    assert.equal(chooseExit(s, { ...o, nowMs: 1000 + 5 * 60_000 }), 'b', 'the timer rotates it');
  });

  test('a rotation (new sequence) or an offline exit re-chooses at once; one exit is kept', () => {
    const s = { agentId: 'a', chosenAtMs: 0, seq: 0 };
    const o = { timerMs: null, nowMs: 10, candidates: ['a', 'b'], isOnline: all, random: () => 0 };
    assert.equal(chooseExit(s, { ...o, seq: 0 }), 'a');
    assert.equal(chooseExit(s, { ...o, seq: 1 }), 'b');
    assert.equal(chooseExit(s, { ...o, seq: 1, isOnline: (id) => id !== 'b' }), 'a');
    assert.equal(chooseExit(s, { ...o, seq: 2, candidates: ['a'] }), 'a', 'the only exit stays');
    assert.equal(chooseExit(s, { ...o, seq: 2, isOnline: () => false }), undefined);
  });
});

describe('exitMatches, the shared rule the package ports apply to their candidates', () => {
  const agent = { id: 'x', cc: 'US', reg: 'New York', city: 'New York', conn: 'cell' as const };
  test('country, state and city in any case, and the connection type', () => {
    assert.ok(exitMatches(agent, { country: 'US', state: 'new york', city: '', connectionType: 'both' }));
    assert.ok(exitMatches(agent, { country: 'US', state: '', city: 'NEW YORK', connectionType: 'mobile' }));
    assert.equal(exitMatches(agent, { country: 'US', state: '', city: '', connectionType: 'wifi' }), false);
    assert.equal(exitMatches(agent, { country: 'CA', state: '', city: '', connectionType: 'both' }), false);
    assert.equal(
      exitMatches(agent, { country: 'US', state: 'California', city: '', connectionType: 'both' }),
      false,
    );
  });
});

describe('targeting in the user name', () => {
  test('parses LOGIN-country-us-city-new_york-session-abc123; refuses unknown or repeated keys', () => {
    assert.deepEqual(parseUserTargeting('ulogin-country-us-city-new_york-session-abc123'), {
      login: 'ulogin',
      country: 'us',
      city: 'new york',
      session: 'abc123',
    });
    assert.deepEqual(parseUserTargeting('ulogin'), { login: 'ulogin' });
    assert.equal(parseUserTargeting('ulogin-zip-10001'), undefined);
    assert.equal(parseUserTargeting('ulogin-city-a-city-b'), undefined);
    assert.equal(parseUserTargeting('ulogin-city'), undefined);
  });

  test('narrows the package geo, never leaves it', () => {
    const pkg = { country: 'US', state: '', city: '', connectionType: 'both' as const };
    assert.deepEqual(narrowGeo(pkg, { login: 'u', country: 'us', city: 'newyork' }), {
      ...pkg,
      city: 'newyork',
    });
    assert.equal(narrowGeo(pkg, { login: 'u', country: 'de' }), undefined);
    const ny = { ...pkg, state: 'NY', city: 'New York' };
    assert.equal(narrowGeo(ny, { login: 'u', city: 'los_angeles' }), undefined);
    assert.deepEqual(narrowGeo(ny, { login: 'u', city: 'new york' }), ny);
    assert.ok(
      exitMatches({ cc: 'US', reg: 'NY', city: 'New York', conn: 'wifi' }, { ...pkg, city: 'newyork' }),
    );
  });
});
