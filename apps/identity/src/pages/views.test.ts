import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html } from './html.ts';
import { loginPage, signupPage } from './views.ts';

test('interpolated values are escaped', () => {
  assert.equal(
    html`<p>${'<b>"x" & \'y\'</b>'}</p>`.value,
    '<p>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</p>',
  );
  const page = loginPage({
    action: '/interaction/abc/login',
    csrf: 'tok',
    email: '"><script>alert(1)</script>',
    error: '<img src=x onerror=alert(1)>',
    signupUrl: '/s',
    forgotUrl: '/f',
  });
  assert.doesNotMatch(page, /<script/i);
  assert.doesNotMatch(page, /<img/i);
  assert.match(page, /&quot;&gt;&lt;script&gt;/);
});

test('pages carry no inline script or style, and a viewport for phones', () => {
  const page = signupPage({ action: '/signup', csrf: 'tok', refCode: 'ABCD2345', loginUrl: '/x' });
  assert.doesNotMatch(page, /<script|<style| style=| on\w+=/i);
  assert.match(page, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
  assert.match(page, /name="_csrf" value="tok"/);
});
