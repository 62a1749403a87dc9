/**
 * The devnet webhook inbox: deliveries kept per inbox name, each signature checked as an integrator
 * would (right secret and body and a fresh `t` verify; a tampered body, another secret or an old
 * `t` does not; no secret says so), a secret given later through the page's form judging past
 * deliveries too, bodies shown escaped.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { checkSignature, startWebhookInbox, type WebhookInbox } from './webhook-inbox.ts';

let inbox: WebhookInbox;
before(async () => {
  inbox = await startWebhookInbox({ host: '127.0.0.1', port: 0, publicHost: 'localhost' });
});
after(async () => inbox.close());

/** The product's documented scheme (apps/server/README.md, "Webhooks"). */
const sign = (secret: string, body: string, t: number) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
const nowS = () => Math.floor(Date.now() / 1000);

async function post(name: string, body: string, signature: string): Promise<number> {
  const res = await fetch(inbox.hookUrl(name), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'pm-signature': signature, 'pm-event-type': 'ping' },
    body,
  });
  await res.text();
  return res.status;
}

test('the URLs: hooks on the origin the API reaches, the page on the public host', () => {
  assert.match(inbox.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(inbox.hookUrl('demo'), `${inbox.origin}/hooks/demo`);
  assert.match(inbox.webUrl, /^http:\/\/localhost:\d+$/);
});

test('checkSignature: the integrator’s check', () => {
  const body = '{"id":"x","type":"ping"}';
  const t = nowS();
  assert.equal(checkSignature('whsec_a', body, sign('whsec_a', body, t), t), true);
  assert.equal(checkSignature('whsec_a', `${body} `, sign('whsec_a', body, t), t), false);
  assert.equal(checkSignature('whsec_b', body, sign('whsec_a', body, t), t), false);
  assert.equal(checkSignature('whsec_a', body, sign('whsec_a', body, t - 301), t), false, 'too old');
  assert.equal(checkSignature('whsec_a', body, 't=1,v1=zz', t), false);
  assert.equal(checkSignature('whsec_a', body, '', t), false);
});

test('each delivery with its event, body and signature check; a secret given later judges it', async () => {
  inbox.setSecret('known', 'whsec_known');
  const body = JSON.stringify({
    id: 'deposit.credited:1',
    type: 'deposit.credited',
    data: { amountC: 2500 },
  });
  assert.equal(await post('known', body, sign('whsec_known', body, nowS())), 200);
  assert.equal(await post('known', body.replace('2500', '250000'), sign('whsec_known', body, nowS())), 200);
  const forged = JSON.stringify({ type: 'ping', note: '<script>alert(1)</script>' });
  assert.equal(await post('later', forged, sign('whsec_later', forged, nowS())), 200);

  const list = inbox.list();
  assert.deepEqual(
    list.slice(0, 3).map((d) => [d.inbox, d.type, d.signature]),
    [
      ['later', 'ping', 'no secret'],
      ['known', 'deposit.credited', 'does not verify'],
      ['known', 'deposit.credited', 'verified'],
    ],
  );
  // The page's form gives the other inbox its secret: its past delivery now verifies.
  const form = await fetch(`${inbox.webUrl.replace('localhost', '127.0.0.1')}/inboxes/later/secret`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret: 'whsec_later' }),
    redirect: 'manual',
  });
  assert.equal(form.status, 303);
  const judged = (await fetch(`${inbox.origin}/api/deliveries`).then((r) => r.json())) as {
    inbox: string;
    signature: string;
  }[];
  assert.equal(judged.find((d) => d.inbox === 'later')?.signature, 'verified');

  const html = await fetch(`${inbox.origin}/`).then((r) => r.text());
  assert.match(html, /deposit\.credited/);
  assert.match(html, /Signature verified/);
  assert.match(html, /Signature does not verify/);
  assert.ok(!html.includes('<script>alert'), 'bodies are escaped');
  assert.match(html, /&lt;script&gt;/);
});

test('only POSTs to /hooks/<name> are kept; waitFor finds one that arrives', async () => {
  assert.equal((await fetch(inbox.hookUrl('demo'))).status, 405);
  assert.equal((await fetch(`${inbox.origin}/hooks/a%2Fb`, { method: 'POST', body: '{}' })).status, 404);
  const waiting = inbox.waitFor((d) => d.inbox === 'demo' && d.type === 'lease.ended', 5_000);
  await post('demo', '{"type":"lease.ended"}', '');
  assert.equal((await waiting).signature, 'no secret');
  await assert.rejects(
    inbox.waitFor((d) => d.inbox === 'nobody', 50),
    /no matching webhook delivery/,
  );
});
