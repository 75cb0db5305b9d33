/** Scheduled publishing (functions/routes/schedules.ts; core/publishing). */
import { LIST_PARAMETERS, ONE_PARAMETERS } from '../components.ts';
import { operation } from '../operation.ts';
import type { SchemaObject } from '../types.ts';
import { endpoint, listOf, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

const tag = 'Schedules';
const time: SchemaObject = {
  type: 'string', format: 'date-time',
  description: 'When to run: ISO 8601 with a time zone (`Z` or an offset), in the future, at most ten years ahead',
};

const CREATE: SchemaObject = {
  type: 'object',
  required: ['action', 'scheduled_at'],
  description: '`publish` promotes `version` (its collection and item follow from it; when given they must match); '
    + '`unpublish` takes `item` of `collection` out of publication (the collection\'s archive field set to its archive '
    + 'value, else `status` set to `draft`).',
  properties: {
    action: { type: 'string', enum: ['publish', 'unpublish'] },
    version: { type: 'string', format: 'uuid', description: 'The version to promote (publish only)' },
    collection: { type: 'string' },
    item: { type: 'string', description: 'The item\'s primary key, as a string' },
    scheduled_at: time,
  },
};

export function publishingEndpoints(ctx: SystemContext): Endpoint[] {
  const schedule = ctx.record('svc_schedules');
  const key = ctx.key('svc_schedules');
  const id = pathParam('id', 'Schedule id', key);
  return [
    endpoint('get', '/schedules', operation({
      id: 'readSchedules', summary: 'List publish schedules', tag, parameters: LIST_PARAMETERS, data: listOf(schedule), raw: true,
      description: 'Admins see all; others need `versioning:view` and see the schedules of items they may read (direct fields only).',
    })),
    endpoint('post', '/schedules', operation({
      id: 'createSchedule', summary: 'Schedule publishing of a version, or unpublishing of an item', tag, body: CREATE, data: key, unique: true,
      description: 'Publishing needs the right to promote the version now; unpublishing, the right to update the item. The run uses the rights the scheduling user has when it falls due.',
    })),
    endpoint('get', '/schedules/{id}', operation({ id: 'readSchedule', summary: 'Read a publish schedule', tag, parameters: [id, ...ONE_PARAMETERS], data: schedule, pathParams: true })),
    endpoint('patch', '/schedules/{id}', operation({
      id: 'rescheduleSchedule', summary: 'Change the time of a schedule that has not run', tag, parameters: [id], pathParams: true, data: key,
      body: { type: 'object', required: ['scheduled_at'], properties: { scheduled_at: time } },
    })),
    endpoint('post', '/schedules/{id}/cancel', operation({
      id: 'cancelSchedule', summary: 'Cancel a schedule that has not run', tag, parameters: [id], pathParams: true,
      data: { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, status: { type: 'string', enum: ['cancelled'] } } },
    })),
  ];
}
