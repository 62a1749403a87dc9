/**
 * The global flags of rules §4 (busy, offline, maintenance, global error) as a tiny external store,
 * so the transport can raise them outside React. Once raised, a full-screen state stays until reload.
 */

export interface GlobalFlags {
  busy: boolean;
  offline: boolean;
  maintenance: boolean;
  globalError: boolean;
}

export type FullScreenState = 'maintenance' | 'offline' | 'error' | null;

export interface FlagStore {
  get(): GlobalFlags;
  set(patch: Partial<GlobalFlags>): void;
  subscribe(listener: () => void): () => void;
}

export function createFlagStore(): FlagStore {
  let flags: GlobalFlags = { busy: false, offline: false, maintenance: false, globalError: false };
  const listeners = new Set<() => void>();
  return {
    get: () => flags,
    set(patch) {
      const next = { ...flags, ...patch };
      if (Object.entries(next).every(([k, v]) => flags[k as keyof GlobalFlags] === v)) return;
      flags = next;
      for (const l of listeners) l();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Which full-screen state wins when several flags are up: maintenance explains offline-looking failures. */
export function fullScreenStateOf(flags: GlobalFlags): FullScreenState {
  if (flags.maintenance) return 'maintenance';
  if (flags.offline) return 'offline';
  if (flags.globalError) return 'error';
  return null;
}
