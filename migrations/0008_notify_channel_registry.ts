/** svc_notify_providers.channel: 0001's CHECK with the channels written out is replaced by one built from the channel
 * registry (migrations/notify-channel-check.ts), which accepts the same channels today and follows the registry from
 * now on. */
import { sql, type Kysely } from 'kysely';
import { CHANNEL_CHECK, syncChannelCheck } from './notify-channel-check.ts';

/** The name Postgres gave 0001's inline CHECK. */
const LEGACY_CHECK = 'svc_notify_providers_channel_check';

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`alter table svc_notify_providers drop constraint if exists ${LEGACY_CHECK}`).execute(db);
  await syncChannelCheck(db);
}

/** Back to a constraint of 0001's name (with the registry's channels: the list lives nowhere else). */
export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(`alter table svc_notify_providers rename constraint ${CHANNEL_CHECK} to ${LEGACY_CHECK}`).execute(db);
}
