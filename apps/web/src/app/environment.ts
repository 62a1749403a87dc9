import { type TEnvironment, ZEnvironmentsFile } from '@pm/contracts';

export const ENVIRONMENTS_PATH = '/environments.json';
export const CONFIG_ERROR_TEXT = "API configuration error: this site's address is not configured.";

export type EnvironmentResult = { ok: true; environment: TEnvironment } | { ok: false; reason: string };

/** Picks the environment whose `origins` contain `origin` from an (unvalidated) environments file. */
export function selectEnvironment(file: unknown, origin: string): EnvironmentResult {
  const parsed = ZEnvironmentsFile.safeParse(file);
  if (!parsed.success) return { ok: false, reason: 'environments file is malformed' };
  const wanted = normaliseOrigin(origin);
  const environment = parsed.data.environments.find((e) =>
    e.origins.some((o) => normaliseOrigin(o) === wanted),
  );
  return environment ? { ok: true, environment } : { ok: false, reason: `no environment for ${origin}` };
}

/** Fetches the environments file from the page's own origin and selects this origin's entry. */
export async function loadEnvironment(
  origin: string,
  fetchFn: typeof fetch = fetch,
  timeoutMs = 60_000,
): Promise<EnvironmentResult> {
  try {
    const res = await fetchFn(new URL(ENVIRONMENTS_PATH, origin), {
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return { ok: false, reason: `environments file answered ${res.status}` };
    return selectEnvironment(await res.json(), origin);
  } catch (e) {
    return { ok: false, reason: `environments file could not be loaded: ${String(e)}` };
  }
}

// Origins compare case-insensitively and without a trailing slash ("http://Localhost:80/" is not an origin,
// but configuration files are written by hand).
function normaliseOrigin(o: string): string {
  return o.trim().replace(/\/+$/, '').toLowerCase();
}
