/** Binds workflows to version submission (core/workflow/start.ts) on the event bus. Registered by createServices in
 * every process; the workflow engine itself is imported with the first submission, not at start-up. */
import type { EventBus } from '../events/bus.ts';
import { isObject } from './input.ts';

export function registerWorkflowHooks(events: EventBus): void {
  events.filter('versions.submit', async (payload, _meta, context) => {
    if (!isObject(payload) || typeof payload.id !== 'string' || typeof payload.collection !== 'string') return undefined;
    const { startForVersion } = await import('./start.ts');
    await startForVersion(context, {
      id: payload.id,
      collection: payload.collection,
      item: String(payload.item),
      delta: payload.delta,
      user_created: typeof payload.user_created === 'string' ? payload.user_created : null,
    });
    return undefined;
  });
}
