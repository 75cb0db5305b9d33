/** The shapes of svc_versions (SPEC.md > svc_versions, States and transitions > Version status). */

export const VERSION_STATUSES = ['draft', 'pending', 'approved', 'rejected'] as const;
export type VersionStatus = typeof VERSION_STATUSES[number];

/** The direct fields of svc_versions, as a caller may select, filter and sort on them. */
export const VERSION_FIELDS = [
  'id', 'key', 'name', 'collection', 'item', 'hash', 'date_created', 'date_updated', 'user_created', 'user_updated', 'delta', 'status',
] as const;

export type Delta = Record<string, unknown>;

/** One svc_versions row as the services use it (not the wire shape). */
export interface VersionRow {
  id: string;
  key: string;
  name: string | null;
  collection: string;
  item: string;
  hash: string | null;
  user_created: string | null;
  delta: Delta | null;
  status: VersionStatus;
}

/** The payload of the `versions.submit` filter and action events. */
export interface SubmitPayload {
  id: string;
  key: string;
  name: string | null;
  collection: string;
  item: string;
  delta: Delta;
  status: 'pending';
  user_created: string | null;
}

export function isEmptyDelta(delta: Delta | null | undefined): boolean {
  return !delta || Object.keys(delta).length === 0;
}
