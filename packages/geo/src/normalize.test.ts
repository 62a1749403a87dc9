import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizePostal } from './normalize.ts';

const cases = (cc: string, pairs: Array<[typed: string, stored: string]>) => {
  for (const [typed, stored] of pairs) assert.equal(normalizePostal(cc, typed), stored, `${cc} "${typed}"`);
};

test('US and PR: five digits, ZIP+4 cut, lost leading zeros restored', () => {
  cases('US', [
    ['10001', '10001'],
    [' 10001 ', '10001'],
    ['10001-1234', '10001'],
    ['100011234', '10001'],
    ['NY 10001', '10001'],
    ['2134', '02134'],
    ['501', '00501'],
    ['123456', '123456'],
  ]);
  cases('PR', [
    ['00901', '00901'],
    ['901', '00901'],
  ]);
});

test('CA and IE: the first three characters (FSA, Eircode routing key)', () => {
  cases('CA', [
    ['K1A 0B1', 'K1A'],
    ['k1a0b1', 'K1A'],
    ['K1A', 'K1A'],
    ['m5h-2n2', 'M5H'],
  ]);
  cases('IE', [
    ['D01 F5P2', 'D01'],
    ['d01f5p2', 'D01'],
    ['D6W 1234', 'D6W'],
    ['A41', 'A41'],
  ]);
});

test('GB: the outward code', () => {
  cases('GB', [
    ['SW1A 1AA', 'SW1A'],
    ['sw1a1aa', 'SW1A'],
    ['SW1A', 'SW1A'],
    ['M1 1AE', 'M1'],
    ['EC1A 1BB', 'EC1A'],
    ['G1', 'G1'],
  ]);
});

test('LV: the LV- prefix, however it was typed', () => {
  cases('LV', [
    ['1050', 'LV-1050'],
    ['LV-1050', 'LV-1050'],
    ['lv1050', 'LV-1050'],
    ['LV 1050', 'LV-1050'],
  ]);
});

test('SE and CZ: a space after the third digit; PL and PT: a hyphen', () => {
  cases('SE', [
    ['11120', '111 20'],
    ['111 20', '111 20'],
    ['SE-111 20', '111 20'],
    ['S-11120', '111 20'],
  ]);
  cases('CZ', [
    ['11000', '110 00'],
    ['110 00', '110 00'],
    ['CZ-110 00', '110 00'],
  ]);
  cases('PL', [
    ['00-002', '00-002'],
    ['00002', '00-002'],
    ['00 002', '00-002'],
    ['002', '00-002'],
  ]);
  cases('PT', [
    ['1000-001', '1000-001'],
    ['1000001', '1000-001'],
    ['1000 001', '1000-001'],
    ['1000', '1000'],
  ]);
});

test('numeric countries: digits only, country prefixes and trailing place names dropped', () => {
  cases('DE', [
    ['10115', '10115'],
    ['D-10115', '10115'],
    ['DE 10115 Berlin', '10115'],
    ['1067', '01067'],
  ]);
  cases('FR', [
    ['75001', '75001'],
    ['75 001', '75001'],
    ['F-75001', '75001'],
    ['1000', '01000'],
    ['75008 cedex 08', '75008 CEDEX 08'],
  ]);
  cases('IN', [['110 001', '110001']]);
  cases('LT', [['LT-01100', '01100']]);
  cases('AU', [
    ['800', '0800'],
    ['2000', '2000'],
  ]);
  cases('MX', [['6000', '06000']]);
});

test('other countries keep the collapsed upper-case text; blank input is empty', () => {
  assert.equal(normalizePostal('NL', ' 1012  ab '), '1012 AB');
  assert.equal(normalizePostal('us', '10001'), '10001');
  assert.equal(normalizePostal('US', '   '), '');
  assert.equal(normalizePostal('DE', 'Berlin'), 'BERLIN');
});
