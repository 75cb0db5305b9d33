/** list_versions: the drafts (content versions) the caller may see, through the versions service (versioning:view;
 * versions of items the caller may read, deltas cut to readable fields), as GET /versions. */
import { z } from 'zod';
import { VERSION_STATUSES } from '../../versions/types.ts';
import { listVersions } from '../../versions/read.ts';
import { loweredNotice } from '../limits.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { COLLECTION, KEY, queryOfArgs, withNotice } from './query-input.ts';

export const listVersionsTool = defineTool({
  name: 'list_versions',
  title: 'List drafts',
  description: 'Content versions (drafts) and their status (draft, pending review, approved, rejected), newest first: of '
    + 'one collection or item, or yours only (mine: true). Each with its changes (delta).',
  input: {
    collection: COLLECTION.optional(),
    item: KEY.optional().describe('The item\'s key (with collection).'),
    status: z.enum(VERSION_STATUSES).optional(),
    mine: z.boolean().optional().describe('Only versions you created.'),
    limit: z.number().int().min(-1).optional(),
    offset: z.number().int().min(0).optional(),
  },
  annotations: READ_ONLY,
  async run(call, args) {
    const { ctx } = call;
    const filter: Record<string, unknown>[] = [];
    if (args.collection !== undefined) filter.push({ collection: { _eq: args.collection } });
    if (args.item !== undefined) filter.push({ item: { _eq: String(args.item) } });
    if (args.status !== undefined) filter.push({ status: { _eq: args.status } });
    if (args.mine) filter.push({ user_created: { _eq: ctx.accountability.user } });
    const { query, lowered } = queryOfArgs(ctx.config, {
      fields: ['id', 'key', 'name', 'collection', 'item', 'status', 'user_created', 'date_created', 'date_updated', 'delta'],
      sort: ['-date_updated'], limit: args.limit, offset: args.offset, ...(filter.length ? { filter: { _and: filter } } : {}),
    });
    return withNotice(await listVersions(ctx, query), loweredNotice(ctx.config, lowered));
  },
});
