/** After-commit callbacks (core/db/after-commit.ts) and EventBus.emitAction on a real transaction: run once the
 * outermost transaction has committed, never on rollback. On PGlite the HTTP-level "after commit" test cannot tell
 * (one connection behind a mutex), so the ordering is checked here directly. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { afterCommit } from '../../core/db/after-commit.ts';
import { inTransaction, run, type Database } from '../../core/db/database.ts';
import { EventBus } from '../../core/events/bus.ts';
import { MemoryQueue } from '../../core/queue/memory-queue.ts';
import { MemoryStore } from '../../core/store/shared-store.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';

let testDb: TestDatabase;
let database: Database;

beforeAll(async () => {
  testDb = await cloneTestDatabase();
  database = await testDb.open();
  await run(database.db, 'create table ac_rows (id int primary key)');
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
});

describe('afterCommit', () => {
  it('waits for the commit of the outermost transaction, nested ones included', async () => {
    const order: string[] = [];
    await inTransaction(database.db, async (trx) => {
      afterCommit(trx, () => order.push('outer'));
      await inTransaction(trx, async (inner) => {
        afterCommit(inner, () => order.push('inner'));
        await run(inner, 'insert into ac_rows values (1)');
      });
      order.push('body done');
    });
    expect(order).toEqual(['body done', 'outer', 'inner']);
  });

  it('drops the callbacks of a rolled-back transaction', async () => {
    const cb = vi.fn();
    await expect(inTransaction(database.db, async (trx) => {
      await run(trx, 'insert into ac_rows values (2)');
      afterCommit(trx, cb);
      await run(trx, 'insert into ac_rows values (2)'); // duplicate key: the transaction fails
    })).rejects.toThrow();
    expect(cb).not.toHaveBeenCalled();
    expect(await run(database.db, 'select * from ac_rows where id = 2')).toEqual([]);
  });

  it('runs at once outside a transaction; a failing callback does not stop the others', async () => {
    const now = vi.fn();
    afterCommit(database.db, now);
    expect(now).toHaveBeenCalledOnce();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const second = vi.fn();
    const result = await inTransaction(database.db, async (trx) => {
      afterCommit(trx, () => { throw new Error('callback bug'); });
      afterCommit(trx, second);
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(second).toHaveBeenCalledOnce();
    errors.mockRestore();
  });
});

describe('EventBus.emitAction', () => {
  it('sends nothing until commit, nothing on rollback, and the handler then sees the committed row', async () => {
    const queue = new MemoryQueue();
    const bus = new EventBus();
    bus.connect(queue, new MemoryStore());
    const seen: unknown[][] = [];
    bus.action('thing.done', async (meta) => {
      seen.push(await run(database.db, 'select id from ac_rows where id = $1', [meta.key]));
    });
    const stop = bus.consume(queue);
    const send = vi.spyOn(queue, 'send');

    await expect(inTransaction(database.db, async (trx) => {
      await run(trx, 'insert into ac_rows values (10)');
      bus.emitAction(trx, 'thing.done', { key: 10 }, null);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    await bus.drain();
    expect(send).not.toHaveBeenCalled();

    await inTransaction(database.db, async (trx) => {
      await run(trx, 'insert into ac_rows values (11)');
      bus.emitAction(trx, 'thing.done', { key: 11 }, null);
      expect(send).not.toHaveBeenCalled();
    });
    expect(send).toHaveBeenCalledOnce();
    await bus.drain();
    await vi.waitFor(() => expect(seen).toEqual([[{ id: 11 }]]));
    await stop();
    await queue.close();
  });
});
