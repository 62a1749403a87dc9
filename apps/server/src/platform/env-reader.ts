/**
 * The readers a module's settings use on environment variables (`readChecksEnv`,
 * `readPaymentsEnv`): each returns the fallback when the variable is unset or blank and pushes
 * one message onto `problems` for a bad value, so the server's start names every bad value at once.
 */
export function createEnvReader(env: NodeJS.ProcessEnv, problems: string[]) {
  /** The trimmed value, or `fallback` when unset or blank. */
  const str = (name: string, fallback: string): string => env[name]?.trim() || fallback;
  return {
    str,
    /** The trimmed value, or undefined when unset or blank. */
    opt: (name: string): string | undefined => env[name]?.trim() || undefined,
    /** An integer in `min`..`max`; a bad value is reported and read as `fallback`. */
    int(name: string, fallback: number, min: number, max: number): number {
      const raw = env[name]?.trim();
      if (!raw) return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) {
        problems.push(`${name} must be an integer ${min}-${max}, got "${raw}"`);
        return fallback;
      }
      return n;
    },
    /** A URL without trailing slashes; a bad value is reported (and returned as given). */
    url(name: string, fallback: string): string {
      const v = str(name, fallback).replace(/\/+$/, '');
      try {
        new URL(v);
      } catch {
        problems.push(`${name} must be a URL, got "${v}"`);
      }
      return v;
    },
  };
}
