/** Migrations in order. Listed here (not read from disk) so a bundled Lambda carries them. */
import type { Migration } from 'kysely';
import * as m0001 from './0001_system_tables.ts';
import * as m0002SystemFieldSpecials from './0002_system_field_specials.ts';
import * as m0003UserEmailLookup from './0003_user_email_lookup.ts';
import * as m0004Workflow from './0004_workflow.ts';
import * as m0005NotifyOutbox from './0005_notify_outbox.ts';
import * as m0006CollectionSearchIndex from './0006_collection_search_index.ts';
import * as m0007NotifySealedContent from './0007_notify_sealed_content.ts';

export const migrations: Record<string, Migration> = {
  '0001_system_tables': m0001,
  '0002_system_field_specials': m0002SystemFieldSpecials,
  '0003_user_email_lookup': m0003UserEmailLookup,
  '0004_workflow': m0004Workflow,
  '0005_notify_outbox': m0005NotifyOutbox,
  '0006_collection_search_index': m0006CollectionSearchIndex,
  '0007_notify_sealed_content': m0007NotifySealedContent,
};
