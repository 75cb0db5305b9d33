/** EventBus.dispatch: at-least-once delivery made effectively-once per handler through the SharedStore. */
import { describe, expect, it } from 'vitest';
import { EventBus, type ActionEvent } from '../../core/events/bus.ts';
import { MemoryQueue } from '../../core/queue/memory-queue.ts';
import { RetryLater } from '../../core/queue/queue.ts';
import { MemoryStore } from '../../core/store/shared-store.ts';

function bus(store = new MemoryStore()) {
  const b = new EventBus();
  b.connect(new MemoryQueue(), store);
  return b;
}
const event = (id: string): ActionEvent => ({ id, event: 'thing', meta: { key: 1 }, accountability: null, emittedAt: new Date().toISOString() });

describe('EventBus.dispatch', () => {
  it('skips handlers that finished on an earlier delivery and retries the one that failed', async () => {
    const b = bus();
    const runs = { a: 0, b: 0 };
    b.action('thing', () => { runs.a += 1; });
    b.action('thing', () => { runs.b += 1; if (runs.b === 1) throw new Error('once'); });
    await expect(b.dispatch(event('e1'))).rejects.toBeInstanceOf(AggregateError);
    await b.dispatch(event('e1'));
    await b.dispatch(event('e1'));
    expect(runs).toEqual({ a: 1, b: 2 });
  });

  it('defers a copy delivered while another copy runs (RetryLater), in any instance sharing the store', async () => {
    const store = new MemoryStore();
    const [one, two] = [bus(store), bus(store)];
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    for (const b of [one, two]) b.action('thing', async () => { runs += 1; await gate; });
    const first = one.dispatch(event('e2'));
    await new Promise((r) => setTimeout(r, 10));
    await expect(two.dispatch(event('e2'))).rejects.toBeInstanceOf(RetryLater);
    release();
    await first;
    await two.dispatch(event('e2')); // the redelivery finds it done
    expect(runs).toBe(1);
  });

  it('a failed run releases its claim, so the redelivery runs it at once', async () => {
    const b = bus();
    let runs = 0;
    b.action('thing', () => { runs += 1; if (runs === 1) throw new Error('once'); });
    await expect(b.dispatch(event('e3'))).rejects.toThrow();
    await b.dispatch(event('e3'));
    expect(runs).toBe(2);
  });

  it('knows a handler by its id when given, so registering another one before it does not rerun it', async () => {
    const store = new MemoryStore();
    const runs: string[] = [];
    const before = bus(store);
    before.action('thing', () => { runs.push('audit'); }, { id: 'audit' });
    await before.dispatch(event('e4'));
    // A new deployment adds a handler in front of it while e4 is redelivered.
    const after = bus(store);
    after.action('thing', () => { runs.push('new'); }, { id: 'new' });
    after.action('thing', () => { runs.push('audit'); }, { id: 'audit' });
    await after.dispatch(event('e4'));
    expect(runs).toEqual(['audit', 'new']);
  });
});

describe('EventBus.consume', () => {
  it('acknowledges a malformed action message instead of failing on it forever', async () => {
    const b = bus();
    const queue = new MemoryQueue({ maxAttempts: 2, retryDelayMs: 5, onDrop: () => { throw new Error('should not be dropped'); } });
    let runs = 0;
    b.action('thing', () => { runs += 1; });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => { errors.push(args[0]); };
    try {
      const stop = b.consume(queue);
      await queue.send({ id: 'm1', type: 'event.action', body: { event: 'thing' } });
      await queue.send({ id: 'm2', type: 'event.action', body: event('ok') });
      await new Promise((r) => setTimeout(r, 50));
      await stop();
    } finally {
      console.error = original;
    }
    expect(runs).toBe(1);
    expect(errors).toEqual(['events: dropping malformed action event message m1']);
  });
});
