import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isInternetExplorer } from './browser.ts';

it('detects Internet Explorer by its user agent', () => {
  assert.equal(
    isInternetExplorer('Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko'),
    true,
  );
  assert.equal(isInternetExplorer('Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1)'), true);
  assert.equal(
    isInternetExplorer(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
    ),
    false,
  );
  assert.equal(isInternetExplorer('Mozilla/5.0 (Windows NT 10.0) Gecko/20100101 Firefox/132.0'), false);
});
