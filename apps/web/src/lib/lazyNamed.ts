import { type ComponentType, createElement, type LazyExoticComponent, lazy } from 'react';

/**
 * `React.lazy` for a named export: `lazyNamed(() => import('./Dialog.tsx'), 'Dialog')`. The module
 * becomes its own chunk, fetched the first time the component renders.
 */
export function lazyNamed<P extends object, K extends string>(
  load: () => Promise<Record<K, ComponentType<P>>>,
  name: K,
): LazyExoticComponent<ComponentType<P>> {
  return lazy(async () => ({ default: (await load())[name] }));
}

/** A component in its own chunk that can be fetched ahead of its first render. */
export interface Preloadable<P extends object> {
  Component: ComponentType<P>;
  /** Fetches the chunk; once it has settled, the component renders at once instead of suspending. */
  preload(): Promise<void>;
}

/**
 * Like `lazyNamed`, with a `preload` for what the first render will need: a lazy component always
 * suspends on its first render, and React holds back what a Suspense boundary reveals for up to
 * 300 ms after it showed its fallback, so a screen whose chunk came early still started late
 * (docs/benchmarks.md, "Web app first visit").
 */
export function preloadable<M, P extends object>(
  load: () => Promise<M>,
  pick: (module: M) => ComponentType<P>,
): Preloadable<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<void> | null = null;
  const preload = () => {
    loading ??= load().then(
      (module) => {
        loaded = pick(module);
      },
      (e: unknown) => {
        loading = null;
        throw e;
      },
    );
    return loading;
  };
  const Lazy = lazy(async () => {
    await preload();
    return { default: loaded as ComponentType<P> };
  });
  function Component(props: P) {
    return createElement((loaded ?? Lazy) as ComponentType<P>, props);
  }
  return { Component, preload };
}
