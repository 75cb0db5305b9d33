/** The caller's review tasks (list_my_tasks) and comments on them (comment_on_task), through the workflow services
 * (workflow:participate; comments from an assignee, the instance's starter or an admin), as GET /workflow-tasks and
 * POST /workflow-instances/{id}/steps/{step}/comment. Agents do not approve or reject: people do. */
import { z } from 'zod';
import { myTasks } from '../../workflow/inbox.ts';
import { commentStep } from '../../workflow/tasks.ts';
import { defineTool, READ_ONLY } from '../tool.ts';

export const listMyTasksTool = defineTool({
  name: 'list_my_tasks',
  title: 'List my review tasks',
  description: 'The review steps assigned to you that wait for a decision: workflow, step, collection, item and the draft '
    + '(version) under review. Read the draft with read_item and its "version"; comment with comment_on_task.',
  input: {
    limit: z.number().int().min(1).optional(),
    page: z.number().int().min(1).optional(),
  },
  annotations: READ_ONLY,
  run(call, args) {
    const max = call.ctx.config.mcp.maxRows;
    return myTasks(call.ctx, { limit: String(Math.min(args.limit ?? max, max)), page: args.page === undefined ? undefined : String(args.page) });
  },
});

export const commentOnTaskTool = defineTool({
  name: 'comment_on_task',
  title: 'Comment on a review task',
  description: 'Adds a comment to the log of an active review step (yours, or of a review you started). It does not '
    + 'approve or reject: a person decides.',
  input: {
    instance_id: z.string().uuid().describe('The workflow instance (instance_id of the task).'),
    step_id: z.string().uuid().describe('The step (step_id or id of the task).'),
    comment: z.string().min(1).max(10_000),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: (call, args) => commentStep(call.ctx, args.instance_id, args.step_id, { comment: args.comment }),
});
