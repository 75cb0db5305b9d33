/** Writing content. create_item and update_item write drafts (../drafts.ts) unless the settings allow direct writes
 * (drafts_only off) and the agent asks for one (draft: false); delete_item only when the settings allow deletes;
 * promote_version only when direct writes are allowed. Every write goes through the items or versions services with
 * the caller's permissions, as the REST routes do. */
import { z } from 'zod';
import { ForbiddenError } from '../../errors.ts';
import { writableCollection } from '../../items/write/context.ts';
import { createItem, deleteItem, updateItem } from '../../items/write/index.ts';
import { promoteByCaller } from '../../versions/promote.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { McpCall } from '../call.ts';
import { draftChanges, draftNewItem } from '../drafts.ts';
import { defineTool } from '../tool.ts';
import { COLLECTION, KEY } from './query-input.ts';

const DATA = z.record(z.string(), z.unknown()).describe('Field values: {"title": "...", "author": 3}. Relations take keys, or nested objects to create/update related items.');
const NAME = z.string().min(1).max(255).optional().describe('A name for the draft, shown to reviewers.');
const SUBMIT = z.boolean().optional().describe('Submit the draft for review when a review workflow matches (default true).');
const DRAFT = z.boolean().optional().describe('false: write the live item directly. Only where the server allows direct writes (drafts_only off) and your permissions do.');

/** Agents write content: the system collections (users, roles, permissions, settings...) are changed through the API,
 * never by a tool, whatever the caller's rights (Directus' items tool refuses them too). */
function contentCollection(call: McpCall, collection: string): CollectionOverview {
  const c = writableCollection(call.ctx, collection);
  if (c.system) throw new ForbiddenError('Agents write to content collections only; system collections (svc_*) are not written by MCP tools.');
  return c;
}

function requireDirectWrites(call: McpCall, what: string): void {
  if (call.settings.drafts_only) {
    throw new ForbiddenError(`${what} is turned off for agents on this server (drafts_only): changes go to review as drafts.`);
  }
}

export const createItemTool = defineTool({
  name: 'create_item',
  title: 'Create an item (as a draft)',
  description: 'Creates a new item as a draft (a content version) that people review: submitted to the review workflow '
    + 'when one matches, the item appears when a reviewer approves it. Answers the draft\'s id and the item\'s key. Pass '
    + '"key" for collections whose keys you choose (strings); uuid keys are generated.',
  input: { collection: COLLECTION, data: DATA, key: KEY.optional(), name: NAME, submit: SUBMIT, draft: DRAFT },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(call, args) {
    const { ctx } = call;
    if (args.draft === false) {
      requireDirectWrites(call, 'Writing live items');
      const c = contentCollection(call, args.collection);
      const payload = args.key === undefined ? args.data : { ...args.data, [c.primary!]: args.key };
      return { mode: 'direct', collection: args.collection, key: await createItem(ctx, args.collection, payload) };
    }
    return draftNewItem(ctx, { collection: args.collection, delta: args.data, key: args.key, name: args.name, submit: args.submit });
  },
});

export const updateItemTool = defineTool({
  name: 'update_item',
  title: 'Change an item (as a draft)',
  description: 'Proposes changes to an item as a draft (a content version) that people review; the live item is unchanged '
    + 'until a reviewer approves it. Only the fields to change. With "version" (a draft of yours that is not under '
    + 'review), the changes are merged into that draft instead of a new one.',
  input: {
    collection: COLLECTION, key: KEY, data: DATA, name: NAME, submit: SUBMIT, draft: DRAFT,
    version: z.string().uuid().optional().describe('Your draft of this item to add the changes to.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(call, args) {
    const { ctx } = call;
    if (args.draft === false) {
      requireDirectWrites(call, 'Writing live items');
      contentCollection(call, args.collection);
      return { mode: 'direct', collection: args.collection, key: await updateItem(ctx, args.collection, args.key, args.data) };
    }
    return draftChanges(ctx, { collection: args.collection, key: args.key, delta: args.data, version: args.version, name: args.name, submit: args.submit });
  },
});

export const deleteItemTool = defineTool({
  name: 'delete_item',
  title: 'Delete an item',
  description: 'Deletes an item, live (deletes are not drafts). Only where the server allows agents to delete '
    + '(allow_deletes) and your permissions do.',
  input: { collection: COLLECTION, key: KEY },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(call, args) {
    if (!call.settings.allow_deletes) throw new ForbiddenError('Deleting is turned off for agents on this server (allow_deletes).');
    contentCollection(call, args.collection);
    await deleteItem(call.ctx, args.collection, args.key);
    return { deleted: { collection: args.collection, key: args.key } };
  },
});

export const promoteVersionTool = defineTool({
  name: 'promote_version',
  title: 'Publish a draft',
  description: 'Applies a draft (content version) to its item, live, without review. Only where the server allows direct '
    + 'writes (drafts_only off) and you may promote the version (versioning:manage, or your own draft not under review).',
  input: { version: z.string().uuid().describe('The draft (content version) id.') },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(call, args) {
    requireDirectWrites(call, 'Publishing drafts');
    await promoteByCaller(call.ctx, args.version);
    return { promoted: args.version };
  },
});
