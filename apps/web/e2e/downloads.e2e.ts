/**
 * The Downloads page when the site has no add-on package (issue 36, item 1), on the mocked backend:
 * a zip path answered with the app's page (what the web listener used to do) or a 404 gives a
 * visible message and no download button, at 1280 and 390 px; a real zip gives the button.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DESKTOP, PHONE, saveScreenshot } from './support/browser.ts';
import { type MockApp, startMockApp } from './support/mockApp.ts';
import { fakeAccessToken } from './support/mockBackend.ts';

const ZIP_URL = '/downloads/proxymarket-addon.zip';
const MISSING_TEXT =
  'The add-on is not available for download from this site at the moment: its package is missing from the site. Please try again later or contact support.';

let app: MockApp;

before(async () => {
  app = await startMockApp();
});

after(async () => {
  await app?.close();
});

type ZipAnswer = { status: number; contentType: string };

async function openDownloads(viewport: typeof DESKTOP, answer: ZipAnswer) {
  const session = await app.newSession({ viewport });
  await session.context.route(`**${ZIP_URL}`, (route) =>
    route.fulfill({ status: answer.status, contentType: answer.contentType, body: 'x' }),
  );
  await session.shell.open(app.baseUrl, '/download', fakeAccessToken());
  await session.shell.waitForShell();
  return session;
}

describe('the Downloads page without the add-on package', () => {
  for (const [viewport, name] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    it(`says the add-on is unavailable instead of offering the app's page as a zip (${name})`, async () => {
      for (const answer of [
        { status: 200, contentType: 'text/html; charset=utf-8' },
        { status: 404, contentType: 'text/plain; charset=utf-8' },
      ]) {
        const { context, shell } = await openDownloads(viewport, answer);
        try {
          await shell.page.getByTestId('addon-missing').getByText(MISSING_TEXT).waitFor();
          const button = shell.page.getByRole('link', { name: 'Download add-on (.zip)' });
          assert.equal(await button.count(), 0, `${answer.status} ${answer.contentType}`);
          if (answer.status === 200) await saveScreenshot(shell.page, `downloads-addon-missing-${name}`);
        } finally {
          await context.close();
        }
      }
    });
  }

  it('offers the button when the zip is there', async () => {
    const { context, shell } = await openDownloads(DESKTOP, { status: 200, contentType: 'application/zip' });
    try {
      await shell.page.getByRole('link', { name: 'Download add-on (.zip)' }).waitFor();
      assert.equal(await shell.page.getByTestId('addon-missing').count(), 0);
    } finally {
      await context.close();
    }
  });
});
