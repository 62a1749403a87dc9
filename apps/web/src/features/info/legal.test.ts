import assert from 'node:assert/strict';
import { it } from 'node:test';
import { operatorCopy, privacySections, termsSections } from './legal.ts';

const text = (sections: ReturnType<typeof termsSections>) =>
  sections.flatMap((s) => [s.heading, ...s.paragraphs]).join('\n');

it('the Terms template states the real rules: refunds, auto-refund, a balance that is not refundable', () => {
  const terms = text(termsSections('ProxyMarket', 'help@op.example'));
  assert.match(
    terms,
    /Auto-refund: if 40% or more of at least 10 requests in the last hour fail because of the proxy itself .* the price you last paid comes back to your balance; never for static proxies/,
  );
  assert.match(terms, /A port package can be refunded while it has carried 10 MB or less per Gb bought/);
  assert.match(
    terms,
    /within the first 4 hours of a lease, while the proxy is offline, has carried less than 100 MB and tests slower than 500 kbps/,
  );
  assert.match(
    terms,
    /Static proxies are refunded within 1 hour of purchase and only if unused: send support \(help@op\.example\)/,
  );
  assert.match(terms, /The balance is not refundable/);
  assert.match(terms, /renewed in its last 5 hours/);
  assert.match(terms, /10% of their first top-up and 5% of every later one/);
  assert.doesNotMatch(terms, /placeholder/i);
  assert.doesNotMatch(text(privacySections('ProxyMarket', 'help@op.example')), /placeholder/i);
});

it("shows the operator's copy when /legal.json has it, the template otherwise", () => {
  assert.equal(operatorCopy({ terms: '## Ours', privacy: null }, 'terms'), '## Ours');
  assert.equal(operatorCopy({ terms: '## Ours', privacy: null }, 'privacy'), null);
  assert.equal(operatorCopy({ terms: '  ', privacy: null }, 'terms'), null);
  assert.equal(operatorCopy('<!doctype html>', 'terms'), null, 'an index.html fallback is not copy');
  assert.equal(operatorCopy(undefined, 'privacy'), null);
});
