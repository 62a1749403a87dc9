import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BYTES_PER_GB, PORT_REFUND_MAX_BYTES } from '@pm/contracts';
import type { Cents } from '@pm/money';
import {
  isPortReactivatable,
  isPortRefundable,
  type PackageRuleInput,
  portRefundAmountC,
} from './ports.rules.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2030, 0, 1);
const pkg = (over: Partial<PackageRuleInput> = {}): PackageRuleInput => ({
  status: 'active',
  trafficType: 'limit',
  trafficGb: 1,
  upload: 0,
  download: 0,
  dateStart: new Date(T0),
  dateFinish: new Date(T0 + DAY),
  priceC: 390 as Cents,
  ...over,
});

test('refundable: 10 MB per Gb at most, before half the period, only while the package serves', () => {
  assert.equal(isPortRefundable(pkg({ download: PORT_REFUND_MAX_BYTES }), T0 + 1), true);
  assert.equal(isPortRefundable(pkg({ download: PORT_REFUND_MAX_BYTES + 1 }), T0 + 1), false);
  assert.equal(isPortRefundable(pkg({ trafficGb: 100, upload: 100 * PORT_REFUND_MAX_BYTES }), T0 + 1), true);
  assert.equal(isPortRefundable(pkg({ trafficType: 'unlimit', trafficGb: 0, upload: 1 }), T0 + 1), true);
  assert.equal(isPortRefundable(pkg(), T0 + DAY / 2 - 1), true);
  assert.equal(isPortRefundable(pkg(), T0 + DAY / 2), false);
  assert.equal(isPortRefundable(pkg({ status: 'suspend' }), T0 + 1), false);
  assert.equal(isPortRefundable(pkg({ status: 'refunded' }), T0 + 1), false);
});

test('refund amount: the price less the traffic used at the per-Gb price, rounded up, never below 0', () => {
  assert.equal(portRefundAmountC(pkg()), 390);
  assert.equal(portRefundAmountC(pkg({ download: 1 })), 389, 'one byte costs a whole cent');
  assert.equal(portRefundAmountC(pkg({ download: 10 * 1024 * 1024 })), 386);
  assert.equal(portRefundAmountC(pkg({ upload: BYTES_PER_GB / 2, download: BYTES_PER_GB / 2 })), 0);
  assert.equal(portRefundAmountC(pkg({ download: 5 * BYTES_PER_GB })), 0);
  // 100 Gb at $390: 1 Gb used costs $3.90.
  assert.equal(
    portRefundAmountC(pkg({ trafficGb: 100, priceC: 39_000 as Cents, download: BYTES_PER_GB })),
    38_610,
  );
  // The unlimited port counts as 1 Gb: 10 MiB of a $32.50 port cost 32 cents (31.7, rounded up).
  const unlimited = pkg({
    trafficType: 'unlimit',
    trafficGb: 0,
    priceC: 3250 as Cents,
    download: 10 * 1024 * 1024,
  });
  assert.equal(portRefundAmountC(unlimited), 3218);
});

test('reactivatable: suspended, or still marked active past its date or at its volume', () => {
  assert.equal(isPortReactivatable(pkg({ status: 'suspend' }), T0 + 1), true);
  assert.equal(isPortReactivatable(pkg(), T0 + 1), false);
  assert.equal(isPortReactivatable(pkg(), T0 + DAY), true);
  assert.equal(isPortReactivatable(pkg({ download: BYTES_PER_GB }), T0 + 1), true);
  assert.equal(
    isPortReactivatable(pkg({ trafficType: 'unlimit', trafficGb: 0, download: 10 * BYTES_PER_GB }), T0 + 1),
    false,
  );
  assert.equal(isPortReactivatable(pkg({ status: 'refunded' }), T0 + DAY), false);
});
