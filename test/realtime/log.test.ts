/** The in-process change log: increasing ids, the retention by count and by age, and what `since` answers at its
 * edges (the Redis stream's are exercised by the Postgres + Redis pass of test/realtime and test/split). */
import { describe, expect, it } from 'vitest';
import { compareIds } from '../../core/realtime/change.ts';
import { MemoryChangeLog } from '../../core/realtime/log.ts';

const change = (n: number) => ({ event: `e${n}`, collection: 'c', action: 'update' as const, keys: [n] });

describe('in-process change log', () => {
  it('keeps the newest REALTIME_RETENTION_EVENTS changes in id order, and says when an id is no longer covered', async () => {
    const log = new MemoryChangeLog({ ms: 60_000, events: 1000 });
    const ids: string[] = [];
    log.listen((changes) => ids.push(...changes.map((c) => c.id)));
    await log.head(); // a subscriber's start
    for (let n = 0; n < 3000; n++) await log.append([change(n)]);
    expect(ids).toHaveLength(3000);
    expect([...ids].sort(compareIds)).toEqual(ids);
    expect(new Set(ids).size).toBe(3000);
    expect(await log.head()).toBe(ids[2999]);
    const cases: [label: string, id: string, expected: number | null][] = [
      ['the last dropped change: everything after it is kept', ids[1999], 1000],
      ['a kept change', ids[2500], 499],
      ['the newest', ids[2999], 0],
      ['a dropped change', ids[1998], null],
      ['an id from before the log began', '1-0', null],
      ['an id the log never handed out', `${Date.now() + 60_000}-1`, null],
    ];
    for (const [label, id, expected] of cases) {
      const got = await log.since(id);
      expect(got === null ? null : got.length, label).toBe(expected);
      if (got && got.length) expect(got[0].id, label).toBe(ids[ids.indexOf(id) + 1]);
    }
  });

  it('keeps nothing until a subscriber asks it for an id, then keeps what follows', async () => {
    const log = new MemoryChangeLog({ ms: 60_000, events: 1000 });
    const heard: string[] = [];
    log.listen((changes) => heard.push(...changes.map((c) => c.id)));
    await log.append([change(1), change(2)]);
    expect(heard).toEqual([]);
    const before = await log.since('1-0');
    expect(before, 'no id was handed out before: a resync').toBeNull();
    const start = await log.head();
    await log.append([change(3)]);
    expect(heard).toHaveLength(1);
    expect(compareIds(heard[0], start)).toBeGreaterThan(0);
    expect((await log.since(start))!.map((c) => c.keys)).toEqual([[3]]);
    expect(await log.head()).toBe(heard[0]);
  });

  it('drops changes older than REALTIME_RETENTION', async () => {
    const log = new MemoryChangeLog({ ms: 50, events: 1000 });
    await log.append([change(1)]);
    const first = await log.head();
    await log.append([change(2)]);
    expect(await log.since(first)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 80));
    await log.append([change(3)]);
    expect(await log.since(first)).toBeNull();
    expect(await log.since(await log.head())).toEqual([]);
  });
});
