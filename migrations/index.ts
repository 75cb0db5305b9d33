/** Migrations in order. Listed here (not read from disk) so a bundled Lambda carries them. */
import type { Migration } from 'kysely';
import * as m0001 from './0001_system_tables.ts';
import * as m0002SystemFieldSpecials from './0002_system_field_specials.ts';

export const migrations: Record<string, Migration> = {
  '0001_system_tables': m0001,
  '0002_system_field_specials': m0002SystemFieldSpecials,
};
