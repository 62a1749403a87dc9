import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExitAgent, PackageGeo } from './package-exits.ts';
import { placeRefusal } from './place-refusal.ts';

const exits: ExitAgent[] = [
  { id: 'a1', cc: 'US', reg: 'NY', city: 'New York', conn: 'wifi' },
  { id: 'a2', cc: 'US', reg: 'NJ', city: 'Newark', conn: 'cell' },
];
const us: PackageGeo = { country: 'US', state: '', city: '', connectionType: 'both' };

describe('the refusal of a targeted login', () => {
  test('a place of the package with an exit here is served', () => {
    assert.equal(placeRefusal(us, { login: 'u', city: 'new york' }, exits), undefined);
    assert.equal(placeRefusal(us, { login: 'u', state: 'nj', session: 's1' }, exits), undefined);
    assert.equal(placeRefusal(us, { login: 'u', session: 's1' }, exits), undefined);
  });

  test('an unknown place says so, not "proxy offline"', () => {
    assert.equal(
      placeRefusal(us, { login: 'u', city: 'Atlantis' }, exits),
      'unknown place in the user name: no exit in city Atlantis',
    );
    assert.equal(
      placeRefusal(us, { login: 'u', state: 'california' }, exits),
      'unknown place in the user name: no exit in state california',
    );
  });

  test('a place outside the package says so', () => {
    assert.equal(
      placeRefusal(us, { login: 'u', country: 'de' }, exits),
      'the user name targets country de, outside the package (country US)',
    );
    const ny: PackageGeo = { country: 'US', state: 'NY', city: 'New York', connectionType: 'both' };
    assert.match(placeRefusal(ny, { login: 'u', city: 'newark' }, exits) ?? '', /outside the package/);
  });

  test('a package with no exit here at all is left to the offline answer', () => {
    const gb: PackageGeo = { country: 'GB', state: '', city: '', connectionType: 'both' };
    assert.equal(placeRefusal(gb, { login: 'u', city: 'london' }, exits), undefined);
  });

  test('whatever the user name holds, the reason is safe for a header line', () => {
    const reason = placeRefusal(us, { login: 'u', city: 'x\r\nSet-Cookie: a=b<script>' }, exits) ?? '';
    assert.doesNotMatch(reason, /[\r\n<>=]/);
    assert.ok(!reason.includes('Set-Cookie:'), reason);
    assert.ok(reason.length < 120, reason);
  });
});
