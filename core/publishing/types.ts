/** The shapes of svc_schedules (migrations/0010_publish_schedules.ts): timed publishing of a version and timed
 * unpublishing of an item. */

export const SCHEDULE_ACTIONS = ['publish', 'unpublish'] as const;
export type ScheduleAction = typeof SCHEDULE_ACTIONS[number];

export const SCHEDULE_STATUSES = ['scheduled', 'done', 'failed', 'cancelled'] as const;
export type ScheduleStatus = typeof SCHEDULE_STATUSES[number];

/** The fields of svc_schedules, as a caller may select, filter and sort on them. */
export const SCHEDULE_FIELDS = [
  'id', 'collection', 'item', 'action', 'version', 'scheduled_at', 'status', 'scheduled_by', 'date_created',
  'user_updated', 'date_updated', 'ran_at', 'error', 'attempts',
] as const;

/** One svc_schedules row as the services use it (not the wire shape). */
export interface ScheduleRow {
  id: string;
  collection: string;
  item: string;
  action: ScheduleAction;
  version: string | null;
  scheduled_at: Date;
  status: ScheduleStatus;
  scheduled_by: string | null;
  attempts: number;
}
