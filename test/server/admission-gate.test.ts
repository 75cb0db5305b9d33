/** The admission gate (core/pressure/admission.ts) on its own: slots, the queue, the wait budget and the refusal on
 * the expected wait. The whole limiter, through real server processes, is test/faults/admission.test.ts. */
import { describe, expect, it } from 'vitest';
import { AdmissionGate } from '../../core/pressure/admission.ts';
import { needsAdmission } from '../../functions/http/pressure.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('admission gate', () => {
  it('admits up to its concurrency, queues the next in order, refuses beyond the queue, and passes a freed slot to the first in line', async () => {
    const gate = new AdmissionGate({ concurrency: 2, queue: 2, maxWaitMs: 10_000 });
    expect([gate.enter(), gate.enter()]).toEqual([true, true]);
    const order: string[] = [];
    const a = (gate.enter() as Promise<boolean>).then((ok) => { order.push(`a:${ok}`); });
    const b = (gate.enter() as Promise<boolean>).then((ok) => { order.push(`b:${ok}`); });
    expect(gate.enter()).toBe(false);
    expect([gate.active, gate.waiting]).toEqual([2, 2]);
    gate.leave();
    await a;
    expect(order).toEqual(['a:true']);
    expect([gate.active, gate.waiting]).toEqual([2, 1]);
    gate.leave();
    await b;
    expect(order).toEqual(['a:true', 'b:true']);
    gate.leave();
    gate.leave();
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
    expect(gate.enter()).toBe(true);
  });

  it('refuses a queued request once its wait budget is spent, and frees its place', async () => {
    const gate = new AdmissionGate({ concurrency: 1, queue: 1, maxWaitMs: 50 });
    expect(gate.enter()).toBe(true);
    const started = Date.now();
    await expect(gate.enter()).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(gate.waiting).toBe(0);
    const again = gate.enter();
    expect(again).toBeInstanceOf(Promise);
    gate.leave();
    await expect(again).resolves.toBe(true);
  });

  it('with no queue or no wait budget, refuses at once when the slots are taken', () => {
    for (const limits of [{ queue: 0, maxWaitMs: 1000 }, { queue: 10, maxWaitMs: 0 }]) {
      const gate = new AdmissionGate({ concurrency: 1, ...limits });
      expect([gate.enter(), gate.enter()]).toEqual([true, false]);
    }
  });

  it('refuses at once when the expected wait (those waiting x the measured interval between admissions) is over the budget, and measures afresh after the queue empties', async () => {
    const gate = new AdmissionGate({ concurrency: 1, queue: 1000, maxWaitMs: 5_000 });
    expect(gate.enter()).toBe(true);
    const waiters = Array.from({ length: 600 }, () => gate.enter() as Promise<boolean>);
    expect(gate.expectedWaitMs()).toBeNull();
    // 25 admissions at least 10 ms apart: 24 intervals of >= 10 ms, 575 still waiting: >= 5.76 s expected.
    for (let i = 0; i < 25; i++) {
      await sleep(10);
      gate.leave();
    }
    expect(gate.expectedWaitMs()!).toBeGreaterThan(5_000);
    expect(gate.enter()).toBe(false);
    // Drain the queue: the next spell starts without a measurement, so a new waiter queues.
    for (let i = 0; i < 575; i++) gate.leave();
    expect(await Promise.all(waiters)).toEqual(Array(600).fill(true));
    expect(gate.waiting).toBe(0);
    const fresh = gate.enter();
    expect(fresh).toBeInstanceOf(Promise);
    expect(gate.expectedWaitMs()).toBeNull();
    gate.leave();
    await expect(fresh).resolves.toBe(true);
  });

  it('does not take one pause (a garbage collection, the machine descheduling the process) for the rate', async () => {
    const gate = new AdmissionGate({ concurrency: 1, queue: 1000, maxWaitMs: 1_000 });
    expect(gate.enter()).toBe(true);
    const waiters = Array.from({ length: 250 }, () => gate.enter() as Promise<boolean>);
    for (let i = 0; i < 15; i++) gate.leave();
    await sleep(200);
    for (let i = 0; i < 15; i++) gate.leave();
    // 29 intervals of next to nothing and one of >= 200 ms: averaged plainly, 221 waiting would expect >= 1.5 s.
    expect(gate.expectedWaitMs()!).toBeLessThan(100);
    const next = gate.enter();
    expect(next).toBeInstanceOf(Promise);
    for (let i = 0; i < 221; i++) gate.leave();
    expect(await Promise.all(waiters)).toEqual(Array(250).fill(true));
    await expect(next).resolves.toBe(true);
  });
});

describe('which requests take an admission slot', () => {
  it.each([
    ['GET', '/items/posts/1', 'application/json', true],
    ['POST', '/items/posts', 'application/json', true],
    ['POST', '/graphql', 'application/json', true],
    ['GET', '/assets/abc', undefined, true],
    // Look-alikes of the exempt paths still count.
    ['GET', '/administrators', undefined, true],
    ['POST', '/admin/x', 'application/json', true],
    ['GET', '/tusk', undefined, true],
    // The Studio's files: read from disk, no database.
    ['GET', '/admin', undefined, false],
    ['GET', '/admin/assets/index-abc.js', undefined, false],
    ['HEAD', '/admin/', undefined, false],
    // Uploads: their bodies stream for as long as the client takes.
    ['POST', '/files', 'multipart/form-data; boundary=x', false],
    ['POST', '/files', 'Multipart/Form-Data; boundary=x', false],
    ['PATCH', '/tus/abc', 'application/offset+octet-stream', false],
    ['POST', '/tus', undefined, false],
    ['POST', '/utils/import/posts', 'text/csv', false],
  ] as const)('%s %s (%s): %s', (method, path, contentType, expected) => {
    expect(needsAdmission(method, path, contentType)).toBe(expected);
  });
});
