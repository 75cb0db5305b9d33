/** The database's CHECK on svc_notify_providers.channel follows the channel registry (migrations/notify-channel-check.ts):
 * after migrating it accepts exactly the registry's channels (also for rows written past /notify/providers), and it is
 * rebuilt whenever its list differs from the registry's, so a channel added to the registry needs no migration. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type Database } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { CHANNEL_IDS } from '../../core/notify/channels/registry.ts';
import { CHANNEL_CHECK, syncChannelCheck } from '../../migrations/notify-channel-check.ts';
import { cloneTestDatabase, type TestDatabase } from '../helpers/app.ts';

let clone: TestDatabase;
let database: Database;
const insert = (channel: string) => run(database.db, 'insert into svc_notify_providers (name, channel) values ($1, $2)', [`p-${channel}`, channel]);
const checks = () => run<{ name: string }>(database.db, `select conname as name from pg_constraint
  where conrelid = 'svc_notify_providers'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%channel%' order by conname`);

beforeAll(async () => {
  clone = await cloneTestDatabase();
  database = await clone.open();
});
afterAll(async () => {
  await database.close();
  await clone.drop();
});

describe('svc_notify_providers.channel check', () => {
  it('is the one constraint built from the registry: its channels pass, others are refused', async () => {
    expect(await checks()).toEqual([{ name: CHANNEL_CHECK }]);
    for (const id of CHANNEL_IDS) await insert(id);
    await expect(insert('pager')).rejects.toMatchObject({ code: '23514' });
  });

  it('is rebuilt when the channel list differs, and brought back to the registry by the next migration run', async () => {
    await syncChannelCheck(database.db, [...CHANNEL_IDS, 'pager']);
    await insert('pager');
    await run(database.db, "delete from svc_notify_providers where channel = 'pager'");
    await migrateToLatest(database);
    await expect(insert('pager')).rejects.toMatchObject({ code: '23514' });
    expect(await checks()).toEqual([{ name: CHANNEL_CHECK }]);
    for (const id of CHANNEL_IDS) await insert(id);
  });

  it('takes only plain channel names into its DDL', async () => {
    await expect(syncChannelCheck(database.db, ["x') or (true"])).rejects.toThrow('must be a short lower-case name');
    await expect(insert('pager')).rejects.toMatchObject({ code: '23514' });
  });
});
