import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import nodemailer from 'nodemailer';
import { type MailCatcher, startMailCatcher } from './mail.ts';

let catcher: MailCatcher;
before(async () => {
  catcher = await startMailCatcher({ host: '127.0.0.1', smtpPort: 0, httpPort: 0 });
});
after(async () => catcher.close());

test('catches a message sent over SMTP and shows it with a clickable link', async () => {
  const transport = nodemailer.createTransport(catcher.smtpUrl);
  const waiting = catcher.waitFor('Someone@Example.com', (m) => m.subject === 'Reset');
  await transport.sendMail({
    from: 'noreply@example.com',
    to: 'someone@example.com',
    subject: 'Reset',
    text: 'Open http://localhost:1/reset?t=abc to continue.',
  });
  const mail = await waiting;
  assert.deepEqual(mail.to, ['someone@example.com']);
  assert.match(mail.text, /reset\?t=abc/);

  const list = await fetch(`${catcher.webUrl}/api/messages`).then((r) => r.json() as Promise<unknown[]>);
  assert.equal(list.length, 1);
  const html = await fetch(`${catcher.webUrl}/messages/${mail.id}`).then((r) => r.text());
  assert.match(html, /<a href="http:\/\/localhost:1\/reset\?t=abc">/);
  const index = await fetch(`${catcher.webUrl}/`).then((r) => r.text());
  assert.match(index, /Reset/);
});

test('waitFor times out when nothing arrives', async () => {
  await assert.rejects(catcher.waitFor('nobody@example.com', undefined, 100), /no mail to nobody/);
});
