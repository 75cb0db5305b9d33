/** The request bodies of POST /schedules and PATCH /schedules/{id}. Times are ISO 8601 with a zone (`Z` or an
 * offset): a time without one would mean a different moment for every reader. */
import { ErrorList, InvalidPayloadError } from '../errors.ts';
import { isPlainObject } from '../items/write/payload.ts';
import { SCHEDULE_ACTIONS, type ScheduleAction } from './types.ts';

/** How far ahead a time may be (ten years). */
const MAX_AHEAD_MS = 10 * 366 * 24 * 3600 * 1000;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export function invalid(field: string | null, message: string, extra: Record<string, unknown> = {}): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { collection: 'svc_schedules', ...(field ? { field } : {}), ...extra });
}

function raise(errors: InvalidPayloadError[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ErrorList(errors);
}

/** A time a schedule may be set to: a zoned ISO 8601 string, in the future, at most ten years ahead. */
export function parseTime(value: unknown, now: Date, errors: InvalidPayloadError[]): Date | null {
  if (value === undefined || value === null || value === '') {
    errors.push(invalid('scheduled_at', '"scheduled_at" is required: the time to run, as ISO 8601 with a time zone (2030-01-31T09:00:00Z).'));
    return null;
  }
  const at = typeof value === 'string' && ISO_WITH_ZONE.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) {
    errors.push(invalid('scheduled_at', '"scheduled_at" must be an ISO 8601 time with a time zone, such as 2030-01-31T09:00:00Z or 2030-01-31T10:00:00+01:00.'));
    return null;
  }
  if (at.getTime() <= now.getTime()) {
    errors.push(invalid('scheduled_at', `"scheduled_at" is in the past (${at.toISOString()}); choose a time after ${now.toISOString()}.`, { reason: 'time_in_past' }));
    return null;
  }
  if (at.getTime() - now.getTime() > MAX_AHEAD_MS) {
    errors.push(invalid('scheduled_at', '"scheduled_at" must be within ten years from now.'));
    return null;
  }
  return at;
}

export type CreateInput =
  | { action: 'publish'; version: string; collection: string | null; item: string | null; scheduledAt: Date }
  | { action: 'unpublish'; collection: string; item: string; scheduledAt: Date };

export function parseCreate(raw: unknown, now: Date): CreateInput {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const errors: InvalidPayloadError[] = [];
  for (const field of Object.keys(raw)) {
    if (!['action', 'version', 'collection', 'item', 'scheduled_at'].includes(field)) errors.push(invalid(field, `"${field}" is not allowed.`));
  }
  const action = raw.action as ScheduleAction;
  if (!SCHEDULE_ACTIONS.includes(action)) errors.push(invalid('action', '"action" must be "publish" (promote a version) or "unpublish" (take the item out of publication).'));
  const str = (field: string, required: boolean): string | null => {
    const value = raw[field];
    if (value === undefined || value === null) {
      if (required) errors.push(invalid(field, `"${field}" is required${action === 'publish' ? ' to publish' : ' to unpublish'}.`));
      return null;
    }
    if (typeof value !== 'string' || value === '' || value.length > 255) {
      errors.push(invalid(field, `"${field}" must be a string of 1 to 255 characters.`));
      return null;
    }
    return value;
  };
  const version = action === 'unpublish' ? null : str('version', action === 'publish');
  if (action === 'unpublish' && raw.version !== undefined && raw.version !== null) {
    errors.push(invalid('version', 'Unpublishing takes the item out of publication; it takes no "version".'));
  }
  const collection = str('collection', action === 'unpublish');
  const item = str('item', action === 'unpublish');
  const scheduledAt = parseTime(raw.scheduled_at, now, errors);
  raise(errors);
  if (action === 'publish') return { action, version: version!, collection, item, scheduledAt: scheduledAt! };
  return { action: 'unpublish', collection: collection!, item: item!, scheduledAt: scheduledAt! };
}

/** PATCH changes the time only; anything else is a new schedule (cancel this one). */
export function parseReschedule(raw: unknown, now: Date): Date {
  if (!isPlainObject(raw)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const errors: InvalidPayloadError[] = [];
  for (const field of Object.keys(raw)) {
    if (field !== 'scheduled_at') errors.push(invalid(field, `"${field}" can't be changed: only "scheduled_at" can. To change anything else, cancel this schedule and create another.`));
  }
  const at = parseTime(raw.scheduled_at, now, errors);
  raise(errors);
  return at!;
}
