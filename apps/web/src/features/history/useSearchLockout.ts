import { useEffect, useState } from 'react';
import { isSearchLocked, SEARCH_LOCKOUT_MS } from './rules.ts';

/**
 * The history search button's lockout (rules §4 "Lists"): `tryLock()` at a search starts 3 s in which
 * the button is disabled; it answers false (and the search is skipped) while a lockout runs.
 */
export function useSearchLockout(): { isLocked: boolean; tryLock: () => boolean } {
  const [clickedAt, setClickedAt] = useState<number | null>(null);
  useEffect(() => {
    if (clickedAt === null) return;
    const timer = setTimeout(() => setClickedAt(null), SEARCH_LOCKOUT_MS);
    return () => clearTimeout(timer);
  }, [clickedAt]);
  const tryLock = () => {
    const now = Date.now();
    if (isSearchLocked(clickedAt, now)) return false;
    setClickedAt(now);
    return true;
  };
  return { isLocked: clickedAt !== null, tryLock };
}
