import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAddonZip } from './addon.ts';

describe('the add-on download is offered only when the site has its zip', () => {
  test('a 200 zip is offered, with or without parameters in its type', () => {
    assert.equal(isAddonZip({ status: 200, contentType: 'application/zip' }), true);
    assert.equal(isAddonZip({ status: 200, contentType: 'Application/ZIP; charset=binary' }), true);
  });

  test("the app's page answered for the zip's path, a 404 or no type is not the add-on", () => {
    assert.equal(isAddonZip({ status: 200, contentType: 'text/html; charset=utf-8' }), false);
    assert.equal(isAddonZip({ status: 404, contentType: 'text/plain; charset=utf-8' }), false);
    assert.equal(isAddonZip({ status: 200, contentType: null }), false);
    assert.equal(isAddonZip({ status: 304, contentType: 'application/zip' }), false);
  });
});
