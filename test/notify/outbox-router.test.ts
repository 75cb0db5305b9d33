/** One queue consumer per process routes by message type: `event.action` to the event bus, `notify.wake` to the
 * notify worker; anything else is acknowledged with a log line instead of being redelivered or silently eaten. */
import { describe, expect, it } from 'vitest';
import { MemoryQueue } from '../../core/queue/memory-queue.ts';
import { routeMessages } from '../../core/queue/router.ts';
import type { QueueMessage } from '../../core/queue/queue.ts';

describe('routeMessages', () => {
  it('hands each type to its handler and acknowledges unknown types with a log line', async () => {
    const seen: string[] = [];
    const lines: string[] = [];
    const handler = routeMessages({
      'event.action': async (m) => { seen.push(`event:${m.id}`); },
      'notify.wake': async (m) => { seen.push(`wake:${m.id}`); },
    }, (l) => lines.push(l));
    await handler({ id: '1', type: 'event.action', body: {} });
    await handler({ id: '2', type: 'notify.wake', body: {} });
    await handler({ id: '3', type: 'mystery', body: {} });
    await handler({ id: '4', type: 'constructor', body: {} });
    expect(seen).toEqual(['event:1', 'wake:2']);
    expect(lines).toEqual([
      'queue: acknowledging message 3 of unknown type "mystery"',
      'queue: acknowledging message 4 of unknown type "constructor"',
    ]);
  });

  it('lets a handler failure reach the queue (redelivered later)', async () => {
    const queue = new MemoryQueue({ retryDelayMs: 5, onDrop: () => {} });
    let calls = 0;
    const done = new Promise<void>((resolve) => {
      queue.consume(routeMessages({ 'notify.wake': async (_m: QueueMessage) => { calls += 1; if (calls === 1) throw new Error('not yet'); resolve(); } }));
    });
    await queue.send({ id: 'w', type: 'notify.wake', body: {} });
    await done;
    expect(calls).toBe(2);
    await queue.close();
  });
});
