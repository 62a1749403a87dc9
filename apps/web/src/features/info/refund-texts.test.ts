/**
 * Every text that promises the auto-refund states the rule the server enforces, from one constant
 * (`AUTO_REFUND_RULE_SHORT`: failures the proxy itself causes, the last hour, the minimum of
 * requests, never for static proxies), and no copy writes the percentage down by hand again.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  AUTO_REFUND_FAIL_PCT,
  AUTO_REFUND_MIN_REQUESTS,
  AUTO_REFUND_RULE_SHORT,
  AUTO_REFUND_RULE_TEXT,
  PORT_REFUND_AMOUNT_TEXT,
  PORT_REFUND_MAX_BYTES,
  PORT_REFUND_RULE_TEXT,
} from '@pm/contracts';
import { refundHint } from '../leases/lifecycle.ts';
import { AUTO_REFUND_NOTE, FAILURE_TEXTS, STATIC_REFUND_NOTE } from '../shop/purchase.ts';
import { faqEntries } from './faq.ts';
import { termsSections } from './legal.ts';

const H = 3_600_000;
const RULES_NOTE =
  'Note: if 40% or more of SOCKS requests through the purchased proxy fail, its price is refunded to the balance automatically.';

test('the short rule says what counts, the window, the minimum and that static proxies are left out', () => {
  assert.ok(AUTO_REFUND_RULE_SHORT.includes(`${AUTO_REFUND_FAIL_PCT}% or more`));
  assert.ok(AUTO_REFUND_RULE_SHORT.includes(`at least ${AUTO_REFUND_MIN_REQUESTS} requests`));
  assert.ok(AUTO_REFUND_RULE_SHORT.includes('in the last hour'));
  assert.ok(AUTO_REFUND_RULE_SHORT.includes('because of the proxy itself'));
  assert.ok(AUTO_REFUND_RULE_SHORT.includes('never for static proxies'));
  assert.ok(AUTO_REFUND_RULE_TEXT.startsWith(AUTO_REFUND_RULE_SHORT));
});

test('every place that promises the auto-refund quotes the rule', () => {
  const lease = {
    start: new Date(0).toISOString(),
    until: new Date(24 * H).toISOString(),
    renewable: false,
    static: false,
    stats: { reqs: 3, failPct: 0, authFails: 0, inBytes: 10, outBytes: 10, refundable: false },
  };
  const terms = termsSections('ProxyMarket', 'help@op.example').flatMap((s) => s.paragraphs);
  const places: Record<string, string> = {
    'shop note (rules §2)': AUTO_REFUND_NOTE,
    'static confirm dialog': STATIC_REFUND_NOTE,
    'test failed dialog': FAILURE_TEXTS.TEST_FAILED.text,
    'refund hint': refundHint(lease, H),
    'FAQ auto-refund': faqEntries()
      .find((e) => e.id === 'auto-refund')!
      .answer.join(' '),
    'Terms refunds': terms.join(' '),
  };
  for (const [where, text] of Object.entries(places)) {
    assert.ok(text.includes(AUTO_REFUND_RULE_SHORT), `${where}: ${text}`);
  }
});

test("the rules' own words stay where the rules quote them; the static dialog never promises the auto-refund", () => {
  assert.ok(AUTO_REFUND_NOTE.startsWith(RULES_NOTE), AUTO_REFUND_NOTE);
  assert.ok(!STATIC_REFUND_NOTE.includes('refunded to the balance automatically'));
  assert.match(STATIC_REFUND_NOTE, /refunded by support within 1 hour of purchase, only if it was not used/);
});

test('the ports FAQ and the Terms state the port refund rule the server applies', () => {
  const mb = PORT_REFUND_MAX_BYTES / (1024 * 1024);
  assert.ok(PORT_REFUND_RULE_TEXT.includes(`${mb} MB or less per Gb bought`));
  assert.ok(PORT_REFUND_RULE_TEXT.includes('less than half of its period'));
  assert.ok(PORT_REFUND_RULE_TEXT.includes("less the traffic used, at the package's price per Gb"));
  assert.ok(PORT_REFUND_RULE_TEXT.endsWith(PORT_REFUND_AMOUNT_TEXT));
  assert.ok(
    faqEntries()
      .find((e) => e.id === 'ports')!
      .answer.includes(PORT_REFUND_RULE_TEXT),
  );
  const terms = termsSections('ProxyMarket', 'help@op.example').flatMap((s) => s.paragraphs);
  assert.ok(terms.includes(PORT_REFUND_RULE_TEXT));
});

test('no web copy writes the auto-refund percentage by hand', () => {
  const src = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name)) files.push(p);
    }
  };
  walk(src);
  assert.ok(files.length > 50, `only ${files.length} files scanned`);
  const literal = new RegExp(`\\b${AUTO_REFUND_FAIL_PCT} ?%`);
  const found = files.filter((f) => literal.test(readFileSync(f, 'utf8'))).map((f) => relative(src, f));
  assert.deepEqual(found, []);
});
