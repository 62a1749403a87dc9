import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canBuy, isIpv4, portRanges, portsSummary, rotationLink, whitelistState } from './rules.ts';

describe('ports rules', () => {
  test('whitelist: untouched, empty or invalid disables Save; 20 IPs, 1 for unlimited', () => {
    assert.ok(isIpv4('203.0.113.5'));
    assert.equal(isIpv4('256.1.1.1'), false);
    assert.deepEqual(whitelistState('', { touched: false, isUnlimited: false }), {
      error: null,
      canSave: false,
    });
    assert.deepEqual(whitelistState('', { touched: true, isUnlimited: false }), {
      error: null,
      canSave: false,
    });
    assert.equal(whitelistState('1.2.3.4, 1.2.3', { touched: true, isUnlimited: false }).canSave, false);
    assert.match(
      whitelistState('1.2.3.4, 1.2.3', { touched: true, isUnlimited: false }).error ?? '',
      /1\.2\.3/,
    );
    assert.equal(whitelistState('1.2.3.4, 5.6.7.8', { touched: true, isUnlimited: false }).canSave, true);
    assert.equal(whitelistState('1.2.3.4, 5.6.7.8', { touched: true, isUnlimited: true }).canSave, false);
    const many = Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`).join(',');
    assert.equal(whitelistState(many, { touched: true, isUnlimited: false }).canSave, false);
  });

  test('Buy is disabled when the price exceeds the balance or is 0 or less', () => {
    assert.equal(canBuy(390, 1000), true);
    assert.equal(canBuy(390, 389), false);
    assert.equal(canBuy(0, 1000), false);
    assert.equal(canBuy(undefined, 1000), false);
  });

  test('port ranges and the rotation link', () => {
    assert.equal(portRanges([30002, 30000, 30001, 30005]), '30000-30002, 30005');
    assert.equal(rotationLink('http://h:7307/', 30000, 'k'), 'http://h:7307/port/change/ip/30000/k');
  });

  test("the phone's line of ports tells two packages of one place apart", () => {
    const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
    assert.equal(portsSummary(range(20683, 100)), '20683-20782 (100 ports)');
    assert.equal(portsSummary([19000]), '19000');
    assert.equal(portsSummary([19000, 19002]), '19000, 19002 (2 ports)');
    assert.equal(portsSummary([1, 3, 5, 7, 9]), '1, 3 and 3 more (5 ports)');
    assert.equal(portsSummary([]), 'No ports yet');
  });
});
