/**
 * Builds the add-on: `dist/unpacked/` (load it with "Load unpacked" or `--load-extension`) and the
 * zip the Downloads page offers, written into the web app's build as
 * `apps/web/dist/downloads/proxymarket-addon.zip` (run after the web build; the root `npm run build`
 * does both). ADDON_SITE_URL pre-fills the popup's site address.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { zipFiles } from './zip.ts';

const ROOT = join(import.meta.dirname, '..');
export const UNPACKED_DIR = join(ROOT, 'dist/unpacked');
export const ADDON_ZIP_NAME = 'proxymarket-addon.zip';
const WEB_DIST = join(ROOT, '../web/dist');

export async function buildAddon(o: { siteUrl?: string; webDist?: string } = {}): Promise<{ zip: Buffer }> {
  const src = join(ROOT, 'src');
  const names = (await readdir(src)).filter((n) => !n.endsWith('.test.ts')).sort();
  const files: { name: string; data: Buffer }[] = [];
  for (const name of names) {
    let data = await readFile(join(src, name));
    if (name === 'popup.js')
      data = Buffer.from(data.toString('utf8').replace('__DEFAULT_SITE__', o.siteUrl ?? ''));
    files.push({ name, data });
  }
  await rm(UNPACKED_DIR, { recursive: true, force: true });
  await mkdir(UNPACKED_DIR, { recursive: true });
  for (const f of files) await writeFile(join(UNPACKED_DIR, f.name), f.data);
  const zip = zipFiles(files);
  await writeFile(join(ROOT, 'dist', ADDON_ZIP_NAME), zip);
  const webDist = o.webDist ?? WEB_DIST;
  if (existsSync(webDist)) {
    await mkdir(join(webDist, 'downloads'), { recursive: true });
    await writeFile(join(webDist, 'downloads', ADDON_ZIP_NAME), zip);
  }
  return { zip };
}

if (import.meta.main) {
  const { zip } = await buildAddon({ siteUrl: process.env.ADDON_SITE_URL });
  console.log(`add-on: ${UNPACKED_DIR} and ${ADDON_ZIP_NAME} (${zip.length} bytes)`);
}
