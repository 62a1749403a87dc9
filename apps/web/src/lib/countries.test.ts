import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RADIUS_SEARCH_COUNTRIES, SHOP_CHIP_COUNTRIES } from '@pm/contracts';
import { COUNTRY_NAMES, continentOf, countryName, placeLabel, truncateName } from './countries.ts';

it('names about 250 countries, each on one continent', () => {
  const codes = Object.keys(COUNTRY_NAMES);
  assert.equal(codes.length, 250);
  for (const cc of codes) assert.notEqual(continentOf(cc), null, cc);
  for (const cc of [...SHOP_CHIP_COUNTRIES, ...RADIUS_SEARCH_COUNTRIES]) assert.ok(COUNTRY_NAMES[cc], cc);
  assert.equal(continentOf('DE'), 'Europe');
  assert.equal(continentOf('ZZ'), null);
  assert.equal(countryName('AE'), 'United Arab Emirates');
  assert.equal(countryName('ZZ'), 'ZZ');
});

it('cuts names in the More menu to 15 characters', () => {
  assert.equal(truncateName('United Kingdom'), 'United Kingdom');
  assert.equal(truncateName('United Arab Emirates'), 'United Arab Em…');
  assert.equal(truncateName('United Arab Emirates').length, 15);
  assert.equal(truncateName('Bosnia and Herzegovina').length <= 15, true);
});

it('labels places with US state abbreviations', () => {
  assert.equal(placeLabel({ cc: 'US', reg: 'Texas', city: 'Austin' }), 'Austin, TX');
  assert.equal(placeLabel({ cc: 'FR', reg: 'Île-de-France', city: 'Paris' }), 'Paris, Île-de-France');
  assert.equal(placeLabel({ cc: 'US', reg: '', city: 'Austin' }), 'Austin');
});
