/** The number of review tasks waiting for the signed-in user (GET /workflow-tasks/count), shown as a badge on the
 * Review module and its Tasks section; read again after every decision (invalidate ['tasks']).
 *
 * The count is not an item collection, so it follows the collection under it live: the steps of workflow
 * instances (svc_workflow_instance_steps; a task is an active step), through a realtime subscription. Any change
 * there reads the count again (tasks of others change it too: a step taken by another reviewer, a delegation).
 * While realtime is not there (not yet connected, switched off, a deployment without it, or the subscription is
 * refused because the user may not read that collection) the count is read every minute, as before realtime. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { useLive } from '../api/live.ts';

const LIVE_SPEC = { collection: 'svc_workflow_instance_steps', query: { fields: ['id', 'status'] } };
const POLL_MS = 60_000;
/** Read the count this often while live too: a safety net, not the way news arrives. */
const LIVE_POLL_MS = 5 * 60_000;

export function useTaskCount(enabled: boolean) {
  const qc = useQueryClient();
  const live = useLive(LIVE_SPEC, () => void qc.invalidateQueries({ queryKey: ['tasks'] }), { enabled });
  return useQuery({
    queryKey: ['tasks', 'count'],
    enabled,
    refetchInterval: live ? LIVE_POLL_MS : POLL_MS,
    queryFn: ({ signal }) => request<{ count: number }>('GET', '/workflow-tasks/count', { signal }).then((d) => d.count),
  });
}
