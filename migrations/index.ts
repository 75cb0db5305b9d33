/** Migrations in order. Listed here (not read from disk) so a bundled Lambda carries them. */
import type { Kysely, Migration } from 'kysely';
import * as m0001 from './0001_system_tables.ts';
import * as m0002SystemFieldSpecials from './0002_system_field_specials.ts';
import * as m0003UserEmailLookup from './0003_user_email_lookup.ts';
import * as m0004Workflow from './0004_workflow.ts';
import * as m0005NotifyOutbox from './0005_notify_outbox.ts';
import * as m0006CollectionSearchIndex from './0006_collection_search_index.ts';
import * as m0007NotifySealedContent from './0007_notify_sealed_content.ts';
import * as m0008NotifyChannelRegistry from './0008_notify_channel_registry.ts';
import * as m0009EventOutbox from './0009_event_outbox.ts';
import * as m0010PublishSchedules from './0010_publish_schedules.ts';
import { syncChannelCheck } from './notify-channel-check.ts';

export const migrations: Record<string, Migration> = {
  '0001_system_tables': m0001,
  '0002_system_field_specials': m0002SystemFieldSpecials,
  '0003_user_email_lookup': m0003UserEmailLookup,
  '0004_workflow': m0004Workflow,
  '0005_notify_outbox': m0005NotifyOutbox,
  '0006_collection_search_index': m0006CollectionSearchIndex,
  '0007_notify_sealed_content': m0007NotifySealedContent,
  '0008_notify_channel_registry': m0008NotifyChannelRegistry,
  '0009_event_outbox': m0009EventOutbox,
  '0010_publish_schedules': m0010PublishSchedules,
};

/** Run after every migration run (pending migrations or none): schema derived from code, rebuilt when the code
 * changed, so it needs no migration of its own. Each is idempotent and safe to run from several processes at once. */
export const derivedSchema: ((db: Kysely<any>) => Promise<void>)[] = [(db) => syncChannelCheck(db)];
