/** The CHECK on svc_notify_providers.channel, built from the channel registry (core/notify/channels/registry.ts), the
 * one list of notification channels. Admins may write provider rows through /items as well as through
 * /notify/providers, so the database keeps refusing an unknown channel; but the list is not written into a migration
 * (0001 did): the constraint is rebuilt whenever it differs from the registry, by 0008 and after every migration run
 * (core/db/migrate.ts), so a channel added to the registry reaches existing databases at the next start. */
import { sql, type Kysely } from 'kysely';
import { CHANNEL_IDS } from '../core/notify/channels/registry.ts';

export const CHANNEL_CHECK = 'svc_notify_providers_channel_known';

/** Channel ids are code, not input; still, only plain names may reach the DDL (which takes no parameters). */
function literal(id: string): string {
  if (!/^[a-z][a-z0-9_]{0,15}$/.test(id)) throw new Error(`Notification channel id ${JSON.stringify(id)} must be a short lower-case name`);
  return `'${id}'`;
}

/** The channels the constraint accepts, sorted; null when there is no such constraint. */
async function checkedChannels(db: Kysely<any>): Promise<string[] | null> {
  const { rows } = await sql<{ def: string }>`select pg_get_constraintdef(oid) as def from pg_constraint
    where conrelid = 'svc_notify_providers'::regclass and conname = ${CHANNEL_CHECK}`.execute(db);
  return rows[0] ? [...rows[0].def.matchAll(/'([^']*)'/g)].map((m) => m[1]).sort() : null;
}

/** `channels`: the registry's (another list only in tests). */
export async function syncChannelCheck(db: Kysely<any>, channels: readonly string[] = CHANNEL_IDS): Promise<void> {
  const sync = async (trx: Kysely<any>): Promise<void> => {
    // Several processes may start at once: one rebuilds, the others then find it in line.
    await sql`select pg_advisory_xact_lock(hashtext(${CHANNEL_CHECK}))`.execute(trx);
    const wanted = [...channels].sort();
    if ((await checkedChannels(trx))?.join(',') === wanted.join(',')) return;
    await sql.raw(`alter table svc_notify_providers drop constraint if exists ${CHANNEL_CHECK},
      add constraint ${CHANNEL_CHECK} check (channel in (${channels.map(literal).join(', ')}))`).execute(trx);
  };
  if (db.isTransaction) await sync(db);
  else await db.transaction().execute(sync);
}
