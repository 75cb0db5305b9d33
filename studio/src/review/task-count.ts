/** The number of review tasks waiting for the signed-in user (GET /workflow-tasks/count), shown as a badge on the
 * Review module and its Tasks section; read again after every decision (invalidate ['tasks']).
 *
 * Live: the realtime feed of the caller's tasks (`svc_workflow_tasks`, docs/realtime.md) says when a task arrives,
 * moves (a delegation, an escalation) or leaves, for every reviewer; the count is then read again. It is still read
 * every minute, as before realtime: that is all there is where realtime is not (switched off, a deployment without
 * it). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { useLive } from '../api/live.ts';

const LIVE_SPEC = { collection: 'svc_workflow_tasks' };
const POLL_MS = 60_000;

export function useTaskCount(enabled: boolean) {
  const qc = useQueryClient();
  useLive(LIVE_SPEC, () => void qc.invalidateQueries({ queryKey: ['tasks'] }), { enabled });
  return useQuery({
    queryKey: ['tasks', 'count'],
    enabled,
    refetchInterval: POLL_MS,
    queryFn: ({ signal }) => request<{ count: number }>('GET', '/workflow-tasks/count', { signal }).then((d) => d.count),
  });
}
