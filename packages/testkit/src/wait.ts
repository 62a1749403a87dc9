/**
 * The one way a test waits: on a condition, never for a fixed time (docs/CONVENTIONS.md, "Tests").
 * Every workspace's tests import it from `@pm/testkit`, which depends on nothing, so unit tests
 * stay unit tests and no package cycle appears.
 */

/** What a condition returns once it holds (`&&` chains return their last operand or a falsy one). */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

export interface WaitOptions {
  /** How long the condition may take before the wait fails. */
  timeoutMs: number;
  /** What is awaited, for the failure message; the condition's source by default. */
  what?: string;
  /** Between two checks; 20 ms by default. */
  intervalMs?: number;
}

/**
 * Checks `condition` until it returns a truthy value and resolves with that value; past
 * `timeoutMs` it throws an Error naming `what` (or the condition's source) and the last value.
 * A condition that throws fails the wait at once: a broken check is not a slow one.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { timeoutMs, what, intervalMs = 20 }: WaitOptions,
): Promise<Truthy<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    const left = deadline - performance.now();
    if (left <= 0) {
      const name = what ?? condition.toString().replace(/\s+/g, ' ');
      throw new Error(`waitFor: ${name}: not within ${timeoutMs} ms (last: ${String(lastOf(value))})`);
    }
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, left)));
  }
}

function lastOf(value: unknown): string {
  try {
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
