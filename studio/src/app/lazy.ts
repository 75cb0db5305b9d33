/** A module loaded on demand that can also be asked for ahead of time (`preload()`, e.g. for the address the Studio
 * opens at). Instead of React.lazy: React.lazy suspends on its first render however early its import started, and
 * once a Suspense fallback has been on screen React holds the content back until 300 ms after the fallback appeared
 * (Suspense's throttling of reveals), so a screen whose code and data were both ready would still wait that long.
 * Here the component renders at once when its code is in; until then it shows `fallback` itself and renders again
 * when the code arrives (an ordinary update, not a Suspense retry). A failed import is thrown to the renderer, as
 * React.lazy does. */
import { createElement, useSyncExternalStore, type ComponentType, type ReactNode } from 'react';

export type Preloadable<P extends object> = ((props: P) => ReactNode) & { preload(): Promise<void> };

export function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>, fallback: ReactNode): Preloadable<P> {
  let state: { component: ComponentType<P> | null; failure: { error: unknown } | null } = { component: null, failure: null };
  let pending: Promise<void> | null = null;
  const listeners = new Set<() => void>();
  const settle = (next: typeof state): void => {
    state = next;
    for (const listener of listeners) listener();
  };
  const preload = (): Promise<void> => {
    pending ??= load().then((m) => settle({ component: m.default, failure: null }), (error: unknown) => settle({ component: null, failure: { error } }));
    return pending;
  };
  const subscribe = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => { listeners.delete(listener); };
  };
  const snapshot = () => state;

  function Preloaded(props: P): ReactNode {
    const { component, failure } = useSyncExternalStore(subscribe, snapshot);
    if (failure) throw failure.error;
    if (component) return createElement(component, props);
    // Started here at the latest, as React.lazy starts its import when first rendered.
    void preload();
    return fallback;
  }
  return Object.assign(Preloaded, { preload });
}
