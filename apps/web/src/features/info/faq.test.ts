import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AUTO_REFUND_RULE_TEXT,
  MAX_WHITELIST_ENTRIES,
  PORT_TIMERS,
  REFUND_MAX_SPEED_BPS,
  REFUND_MAX_TRAFFIC_BYTES,
  REFUND_WINDOW_MS,
  RENEW_WINDOW_MS,
  STATIC_REFUND_WINDOW_MS,
} from '@pm/contracts';
import { bandLegend, SCORE_SCALES, VERDICT_RULE } from '../checks/scoreReading.ts';
import { FAQ_RULES, faqEntries } from './faq.ts';

const text = (entries = faqEntries()) =>
  entries.map((e) => `${e.question}\n${e.answer.join('\n')}`).join('\n');
const answer = (id: string, entries = faqEntries()) =>
  entries.find((e) => e.id === id)?.answer.join(' ') ?? '';

test('the FAQ states the rules with the values the server enforces', () => {
  assert.ok(answer('refunds').includes(`within the first ${REFUND_WINDOW_MS / 3_600_000} hours`));
  assert.ok(answer('refunds').includes(`less than ${REFUND_MAX_TRAFFIC_BYTES / 1_000_000} MB`));
  assert.ok(answer('refunds').includes(`under ${REFUND_MAX_SPEED_BPS / 1000} kbps`));
  assert.ok(answer('refunds').includes(`within ${STATIC_REFUND_WINDOW_MS / 3_600_000} hour of purchase`));
  assert.ok(answer('renew').includes(`last ${RENEW_WINDOW_MS / 3_600_000} hours`));
  assert.equal(answer('auto-refund'), AUTO_REFUND_RULE_TEXT);
  assert.ok(answer('whitelist').includes(`up to ${MAX_WHITELIST_ENTRIES} IPv4`));
  assert.ok(
    answer('ports').includes(`every ${PORT_TIMERS.slice(0, -1).join(', ')} or ${PORT_TIMERS.at(-1)} minutes`),
  );
  // Rules §9's clean score, from the function the server scores with.
  assert.ok(
    answer('clean-score').includes(
      'on no list: 5; 1 to 2 lists: 4; 3 to 6 lists: 3; 7 to 9 lists: 2; 10 or more lists: 1',
    ),
  );
});

test('the IP score answer quotes the scales and the verdict rule the panel uses', () => {
  const a = answer('ip-score');
  assert.ok(a.includes('charges it only when you confirm'));
  for (const s of SCORE_SCALES) assert.ok(a.includes(`${s.label} is ${s.name}`) && a.includes(bandLegend(s)));
  assert.ok(a.includes(VERDICT_RULE));
});

test('changing a rule changes the FAQ (no number is written into the copy)', () => {
  const changed = faqEntries({
    ...FAQ_RULES,
    refundWindowMs: 2 * 3_600_000,
    refundMaxBytes: 50_000_000,
    whitelistMax: 7,
    portTimers: [3, 9],
    autoRefundText: 'X% rule',
  });
  assert.ok(answer('refunds', changed).includes('within the first 2 hours'));
  assert.ok(answer('refunds', changed).includes('less than 50 MB'));
  assert.ok(answer('whitelist', changed).includes('up to 7 IPv4'));
  assert.ok(answer('ports', changed).includes('every 3 or 9 minutes'));
  assert.equal(answer('auto-refund', changed), 'X% rule');
  assert.notEqual(text(changed), text());
});

test('every answer is there and ids are unique', () => {
  const entries = faqEntries();
  assert.equal(new Set(entries.map((e) => e.id)).size, entries.length);
  for (const e of entries)
    assert.ok(e.answer.every((a) => a.length > 20 && !a.includes('undefined') && !a.includes('NaN')));
});
