/** Times on the review screens: relative for reading at a glance ("2 hours ago", "in 3 days"), the exact time in the
 * element's title and datetime. */
import { absoluteTime, relativeTime } from '../../content/item/sidebar/format.ts';

export function When({ at, className }: { at: string | null; className?: string }) {
  if (!at) return <span className="muted">—</span>;
  return <time className={className} dateTime={at} title={absoluteTime(at)}>{relativeTime(at)}</time>;
}

/** Since when a task waits. */
export function Since({ at }: { at: string | null }) {
  return <When at={at} />;
}

/** When a step times out: "in 3 hours", or overdue (the timeout job acts on it shortly). */
export function Timeout({ at }: { at: string | null }) {
  if (!at) return <span className="muted">No timeout</span>;
  const overdue = Date.parse(at) <= Date.now();
  if (!overdue) return <When at={at} />;
  return <span className="tasks-overdue">Overdue, <When at={at} /></span>;
}
