/** The in-process Queue (core/queue/memory-queue.ts). */
import { describe, expect, it, vi } from 'vitest';
import { MemoryQueue } from '../../core/queue/memory-queue.ts';
import type { QueueMessage } from '../../core/queue/queue.ts';

describe('MemoryQueue', () => {
  it('keeps messages sent before anyone consumes for the first consumer', async () => {
    const q = new MemoryQueue();
    await q.send({ id: 'early', type: 't', body: 1 });
    const got: QueueMessage[] = [];
    q.consume(async (m) => { got.push(m); });
    await vi.waitFor(() => expect(got.map((m) => m.id)).toEqual(['early']));
    await q.close();
  });

  it('retries a throwing consumer with backoff, then drops after maxAttempts', async () => {
    const onDrop = vi.fn();
    const q = new MemoryQueue({ maxAttempts: 3, retryDelayMs: 10, onDrop });
    let attempts = 0;
    q.consume(async () => { attempts += 1; throw new Error('always'); });
    await q.send({ id: 'bad', type: 't', body: null });
    await vi.waitFor(() => expect(onDrop).toHaveBeenCalledOnce());
    expect(attempts).toBe(3);
    await q.close();
  });

  it('a message whose consumer stopped before it was delivered goes to the next consumer', async () => {
    const q = new MemoryQueue();
    const first = vi.fn(async () => {});
    const stop = q.consume(first);
    await q.send({ id: 'handover', type: 't', body: null });
    await stop(); // before the delivery's tick
    expect(first).not.toHaveBeenCalled();
    const second: string[] = [];
    q.consume(async (m) => { second.push(m.id); });
    await vi.waitFor(() => expect(second).toEqual(['handover']));
    await q.close();
  });

  it('delivers a JSON copy, as SQS would, and refuses a body JSON cannot carry', async () => {
    const q = new MemoryQueue();
    const body = { when: new Date('2024-01-01T00:00:00Z'), list: [1], skipped: undefined };
    const got: QueueMessage[] = [];
    q.consume(async (m) => { got.push(m); });
    await q.send({ id: 'copy', type: 't', body });
    await vi.waitFor(() => expect(got).toHaveLength(1));
    expect(got[0].body).toEqual({ when: '2024-01-01T00:00:00.000Z', list: [1] });
    expect(got[0].body).not.toBe(body);
    await expect(q.send({ id: 'big', type: 't', body: { n: 1n } })).rejects.toThrow();
    await q.close();
  });
});
