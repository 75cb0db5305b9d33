/** The number of review tasks waiting for the signed-in user (GET /workflow-tasks/count), shown as a badge on the
 * Review module and its Tasks section; read again after every decision (invalidate ['tasks']).
 *
 * The count is not an item collection, and the workflow tables under it are not offered to realtime subscribers;
 * tasks come from versions, though: a workflow starts when a draft is submitted (versions.submit: the version turns
 * `pending` and the instance's first steps become tasks in the same transaction), and promoting or rejecting the
 * draft ends them. So the count follows svc_versions live (a realtime subscription; any change to a version reads
 * the count again). The count is still read every minute, as before realtime: that is all there is where realtime
 * is not (switched off, a deployment without it) or where the subscription is refused (a reviewer without read
 * access to svc_versions: the realtime hub asks for the collection's read permission, which the versions module's
 * own rules do not grant), and it catches what versions do not show (a delegation, a timeout's escalation). */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { useLive } from '../api/live.ts';

const LIVE_SPEC = { collection: 'svc_versions', query: { fields: ['id', 'status'] } };
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
