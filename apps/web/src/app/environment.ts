import { type TEnvironment, ZEnvironmentsFile } from '@pm/contracts';
import { fetchEnvironmentsFile, normaliseOrigin } from './environment-file.ts';

export { ENVIRONMENTS_PATH } from './environment-file.ts';
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
  const got = await fetchEnvironmentsFile(origin, fetchFn, timeoutMs);
  return got.ok ? selectEnvironment(got.file, origin) : got;
}
