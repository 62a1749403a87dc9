/**
 * Whether this site offers the browser add-on's package. The web build holds it only when the
 * add-on was packed into it (`npm run build`, `npm start`); the Downloads page asks first, so a
 * site without it says so instead of offering a download that saves something else. Pure but for
 * the fetch, so Node tests the rule.
 */

/** Where the build puts the add-on (apps/extension/scripts/build.ts). */
export const ADDON_ZIP_URL = '/downloads/proxymarket-addon.zip';

export const ADDON_MISSING_TEXT =
  'The add-on is not available for download from this site at the moment: its package is missing from the site. Please try again later or contact support.';

/** What a HEAD of the zip answered. */
export interface ZipAnswer {
  status: number;
  contentType: string | null;
}

/** Only a 200 that is a zip counts: a web listener may answer an unknown path with the app's page. */
export const isAddonZip = (a: ZipAnswer): boolean =>
  a.status === 200 && (a.contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/zip';

/** Asks the site for the add-on's zip (HEAD: no body); a network failure counts as missing. */
export async function fetchIsAddonOffered(signal?: AbortSignal): Promise<boolean> {
  try {
    const res = await fetch(ADDON_ZIP_URL, { method: 'HEAD', cache: 'no-store', signal });
    return isAddonZip({ status: res.status, contentType: res.headers.get('content-type') });
  } catch {
    return false;
  }
}
