import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement, Suspense } from 'react';
import { renderToString } from 'react-dom/server';
import { preloadable } from './lazyNamed.ts';

const Hello = ({ name }: { name: string }) => createElement('p', null, `hello ${name}`);

const inSuspense = (element: ReturnType<typeof createElement>) =>
  createElement(Suspense, { fallback: createElement('p', null, 'loading') }, element);

test('a preloadable component suspends until its chunk is in, and renders at once after preload', async () => {
  let loads = 0;
  const screen = preloadable(
    async () => {
      loads++;
      return { Hello };
    },
    (m) => m.Hello,
  );
  assert.match(renderToString(inSuspense(createElement(screen.Component, { name: 'a' }))), /loading/);
  await screen.preload();
  await screen.preload();
  assert.match(renderToString(inSuspense(createElement(screen.Component, { name: 'b' }))), /hello b/);
  assert.equal(loads, 1, 'the chunk is fetched once');
});

test('a failed preload is tried again by the next one', async () => {
  let fail = true;
  const screen = preloadable(
    async () => {
      if (fail) throw new Error('chunk missing');
      return { Hello };
    },
    (m) => m.Hello,
  );
  await assert.rejects(screen.preload(), /chunk missing/);
  fail = false;
  await screen.preload();
  assert.match(renderToString(createElement(screen.Component, { name: 'c' })), /hello c/);
});
