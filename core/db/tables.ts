/** The system tables that have an owner module, typed for Kysely's query builder (columns as
 * migrations/ creates them). An owner module (e.g. core/files/table.ts) writes its simple statements
 * through `tables(ex)`; hand-tuned SQL stays text run through `run`. Other system tables join here when
 * they get an owner. test/db/tables.test.ts checks these columns against the migrated database. */
import type { ColumnType, Kysely } from 'kysely';
import type { Executor } from './database.ts';

/** A timestamptz with a default: read as a Date or ISO text; written as either (or as `now()`). */
type Timestamp = ColumnType<Date | string, Date | string | undefined, Date | string>;
/** A json column: written as JSON text (what both drivers send unchanged), read as the parsed value or text. */
type Json = ColumnType<unknown, string | null, string | null>;
/** A bigint: read as a number when it is a safe integer (the pg driver's parser) or as text. */
type BigInt8 = ColumnType<number | string, number | string, number | string>;

export interface FilesTable {
  id: string;
  storage: string;
  filename_disk: string | null;
  filename_download: string;
  title: string | null;
  type: string | null;
  folder: string | null;
  uploaded_by: string | null;
  created_on: Timestamp;
  modified_by: string | null;
  modified_on: Timestamp;
  charset: string | null;
  filesize: BigInt8 | null;
  width: number | null;
  height: number | null;
  duration: number | null;
  embed: string | null;
  description: string | null;
  location: string | null;
  tags: Json;
  metadata: Json;
  focal_point_x: number | null;
  focal_point_y: number | null;
  tus_id: string | null;
  tus_data: Json;
}

export interface UsersTable {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  password: string | null;
  require_password_change: ColumnType<boolean, boolean | undefined, boolean>;
  location: string | null;
  title: string | null;
  description: string | null;
  tags: Json;
  avatar: string | null;
  language: string | null;
  theme: string | null;
  appearance: string | null;
  tfa_secret: string | null;
  tfa_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  status: ColumnType<string, string | undefined, string>;
  role: string | null;
  token: string | null;
  last_access: ColumnType<Date | string | null, Date | string | null | undefined, Date | string | null>;
  last_page: string | null;
  provider: ColumnType<string, string | undefined, string>;
  external_identifier: string | null;
  auth_data: Json;
  email_notifications: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
}

export interface SystemTables {
  svc_files: FilesTable;
  svc_users: UsersTable;
}

/** Every column of each typed table, for the check against the migrated database. The mapped type makes
 * the compiler refuse a list that misses a column of the interface or names one it does not have. */
type AllColumns<T> = { [K in keyof T]-?: readonly (keyof T[K] & string)[] };
export const TABLE_COLUMNS = {
  svc_files: [
    'id', 'storage', 'filename_disk', 'filename_download', 'title', 'type', 'folder', 'uploaded_by', 'created_on',
    'modified_by', 'modified_on', 'charset', 'filesize', 'width', 'height', 'duration', 'embed', 'description',
    'location', 'tags', 'metadata', 'focal_point_x', 'focal_point_y', 'tus_id', 'tus_data',
  ],
  svc_users: [
    'id', 'first_name', 'last_name', 'email', 'password', 'require_password_change', 'location', 'title', 'description',
    'tags', 'avatar', 'language', 'theme', 'appearance', 'tfa_secret', 'tfa_enabled', 'status', 'role', 'token',
    'last_access', 'last_page', 'provider', 'external_identifier', 'auth_data', 'email_notifications',
  ],
} as const satisfies AllColumns<SystemTables>;

// Compile-time: every interface column is listed (a missing one makes this `false` and the line an error).
type Listed<T extends keyof SystemTables> = (typeof TABLE_COLUMNS)[T][number];
type Complete = { [T in keyof SystemTables]: Exclude<keyof SystemTables[T], Listed<T>> extends never ? true : false };
const complete: false extends Complete[keyof SystemTables] ? false : true = true;
void complete;

/** The executor (the Kysely instance or the caller's transaction) with the system tables typed. Ours is
 * `Kysely<any>` at run time; this only narrows what the compiler lets a statement name. */
export function tables(ex: Executor): Kysely<SystemTables> {
  return ex as Kysely<SystemTables>;
}
