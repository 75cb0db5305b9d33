/** Extension hooks on the event bus, each bounded by EXTENSIONS_HOOK_TIMEOUT. A filter that throws or runs out of
 * time fails the change (the caller gets the error envelope: its own ServiceError, else a 500); an action that
 * throws or runs out of time is logged and not retried, as Directus does with action hooks. */
import { InternalServerError, ServiceError } from '../errors.ts';
import type { ConfigPort, DatabasePort, EventsPort, SchemaPort } from '../ports.ts';
import type { ActionHook, ExtensionLogger, FilterHook, HookContext } from './api.ts';
import { detachedContext, itemsApi } from './items-api.ts';

/** Runs `fn`, rejecting when it has not settled after `ms` (the work itself cannot be cancelled and finishes in
 * the background). */
export async function runBounded<T>(fn: () => T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(fn),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HookTimeoutError(`${what} did not finish within ${ms} ms`)), ms);
        timer.unref();
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class HookTimeoutError extends Error {}

export function registerFilter(services: ConfigPort & EventsPort, folder: string, event: string, handler: FilterHook, log: ExtensionLogger): void {
  const timeout = services.config.extensions.hookTimeoutMs;
  services.events.filter(event, async (payload, meta, { ctx }) => {
    const context: HookContext = {
      accountability: ctx.accountability,
      eventId: null,
      // Inside the change's transaction, under the caller's permissions.
      items: (collection) => itemsApi(async () => ctx, collection),
      logger: prefixed(log, folder),
    };
    try {
      return await runBounded(() => handler(payload, meta, context), timeout, `filter "${event}" of extension "${folder}"`);
    } catch (err) {
      if (err instanceof ServiceError) throw err;
      log.error(`extension "${folder}": filter "${event}" failed: ${(err as Error)?.message ?? String(err)}`);
      throw new InternalServerError(`Extension "${folder}" failed in "${event}".`);
    }
  });
}

export function registerAction(services: ConfigPort & DatabasePort & EventsPort & SchemaPort, folder: string, event: string, handler: ActionHook, id: string, log: ExtensionLogger): void {
  const timeout = services.config.extensions.hookTimeoutMs;
  services.events.action(event, async (meta, { accountability, event: emitted }) => {
    const context: HookContext = {
      accountability,
      eventId: emitted.id,
      items: (collection) => itemsApi(detachedContext(services, accountability), collection),
      logger: prefixed(log, folder),
    };
    try {
      await runBounded(() => handler(meta, context), timeout, `action "${event}" of extension "${folder}"`);
    } catch (err) {
      log.error(`extension "${folder}": action "${event}" failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }, { id });
}

export function prefixed(log: ExtensionLogger, folder: string): ExtensionLogger {
  return {
    info: (m, ...d) => log.info(`[${folder}] ${m}`, ...d),
    warn: (m, ...d) => log.warn(`[${folder}] ${m}`, ...d),
    error: (m, ...d) => log.error(`[${folder}] ${m}`, ...d),
  };
}
