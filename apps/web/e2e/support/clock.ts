/** Checks on the times a screen shows (issue 36 item 10: one time format everywhere). */
import assert from 'node:assert/strict';

/** Every time of day in `text`: "3:25 AM", "03:25", "12:36:16 AM". */
export function timesIn(text: string): string[] {
  const plain = text.replaceAll('\u202f', ' ');
  return [...plain.matchAll(/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M\b)?/g)].map((m) => m[0]);
}

/**
 * Asserts that `text` shows at least `atLeast` times, all on `clock` (12-hour with AM/PM, or
 * 24-hour) and none with seconds.
 */
export function assertOneClock(text: string, clock: '12h' | '24h', atLeast = 1): void {
  const times = timesIn(text);
  assert.ok(times.length >= atLeast, `at least ${atLeast} time(s) in ${JSON.stringify(text)}`);
  for (const t of times) {
    assert.doesNotMatch(t, /:\d\d:\d\d/, `no seconds: ${t}`);
    assert.equal(/[AP]M$/.test(t), clock === '12h', `${t} on the ${clock} clock in ${JSON.stringify(text)}`);
  }
}
