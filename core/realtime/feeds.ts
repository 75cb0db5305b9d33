/** Subscriptions to what is not an item collection: the caller's review tasks (`svc_workflow_tasks`, what GET
 * /workflow-tasks lists). A feed says who may subscribe and reads its rows for a caller; its changes come as action
 * events like item changes (`workflow.tasks`, keyed by workflow instance: core/workflow/engine.ts), so the hub fans
 * them out, resumes and groups them as it does items (one group per user: a feed is personal). */
import type { ServiceContext } from '../context.ts';
import { InvalidQueryError } from '../errors.ts';
import { TASKS_FEED } from '../workflow/engine.ts';
import { myTasks, myTasksIn, requireReviewer } from '../workflow/inbox.ts';

export type FeedKey = string | number;

export interface Feed {
  /** The field of a row that holds its key (what a change names). */
  key: string;
  /** Throws FORBIDDEN when the caller may not subscribe. */
  authorize(ctx: ServiceContext): Promise<void>;
  /** The caller's rows for these keys. */
  read(ctx: ServiceContext, keys: FeedKey[]): Promise<Record<string, unknown>[]>;
  /** The caller's rows now (the `init` answer). */
  all(ctx: ServiceContext): Promise<Record<string, unknown>[]>;
}

const tasks: Feed = {
  key: 'instance_id',
  authorize: requireReviewer,
  read: async (ctx, keys) => (await myTasksIn(ctx, keys.map(String))) as unknown as Record<string, unknown>[],
  all: async (ctx) => (await myTasks(ctx)).data as unknown as Record<string, unknown>[],
};

const FEEDS = new Map<string, Feed>([[TASKS_FEED, tasks]]);

export function feedOf(collection: string): Feed | undefined {
  return FEEDS.get(collection);
}

/** A feed takes no query: it is the caller's rows. */
export function checkFeedQuery(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0) return;
  throw new InvalidQueryError('This subscription takes no query.');
}
