/** One queue consumer per process, routing each message by its type (the queue is shared: action events for the
 * extension host, wake-ups for the notify worker). A message nobody here handles is acknowledged with a log line:
 * redelivering it would not give it a handler. */
import type { QueueHandler, QueueMessage } from './queue.ts';

export type MessageRoutes = Record<string, QueueHandler>;

export function routeMessages(routes: MessageRoutes, log: (line: string) => void = (l) => console.warn(l)): QueueHandler {
  return async (message: QueueMessage) => {
    const handler = Object.hasOwn(routes, message.type) ? routes[message.type] : undefined;
    if (!handler) {
      log(`queue: acknowledging message ${message.id} of unknown type "${String(message.type)}"`);
      return;
    }
    await handler(message);
  };
}
