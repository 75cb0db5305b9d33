/** The number of review tasks waiting for the signed-in user (GET /workflow-tasks/count), shown as a badge on the
 * Review module and its Tasks section; read again every minute and after every decision (invalidate ['tasks']). */
import { useQuery } from '@tanstack/react-query';
import { request } from '../api/client.ts';

export function useTaskCount(enabled: boolean) {
  return useQuery({
    queryKey: ['tasks', 'count'],
    enabled,
    refetchInterval: 60_000,
    queryFn: ({ signal }) => request<{ count: number }>('GET', '/workflow-tasks/count', { signal }).then((d) => d.count),
  });
}
