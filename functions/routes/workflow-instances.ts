/** GET /workflow-instances/{id}, the reviewers' step actions and the admin cancel (SPEC.md > Workflow). */
import type { Hono } from 'hono';
import { cancelInstance, readInstance } from '../../core/workflow/instances.ts';
import { approveStep, commentStep, delegateStep, rejectStep } from '../../core/workflow/tasks.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

const STEP_ACTIONS = { approve: approveStep, reject: rejectStep, delegate: delegateStep, comment: commentStep } as const;

export function mountWorkflowInstanceRoutes(app: Hono<AppEnv>): void {
  app.get('/workflow-instances/:id', async (c) => c.json({ data: await readInstance(await serviceContext(c), c.req.param('id')) }));
  app.post('/workflow-instances/:id/cancel', async (c) => c.json({ data: await cancelInstance(await serviceContext(c), c.req.param('id'), await readJson(c)) }));
  for (const [name, action] of Object.entries(STEP_ACTIONS)) {
    app.post(`/workflow-instances/:id/steps/:step/${name}`, async (c) => c.json({
      data: await action(await serviceContext(c), c.req.param('id'), c.req.param('step'), await readJson(c)),
    }));
  }
}
