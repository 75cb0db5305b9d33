/** Workflow definitions (SPEC.md > Workflow): /workflows, their steps and transitions, activate/deactivate.
 * Records answer `{data: <record>}`, deletes 204, as Directus' system endpoints do. */
import type { Hono } from 'hono';
import { activateWorkflow, deactivateWorkflow } from '../../core/workflow/activation.ts';
import { createWorkflow, deleteWorkflow, listWorkflows, readWorkflow, updateWorkflow } from '../../core/workflow/definitions.ts';
import { createStep, createTransition, deleteStep, deleteTransition, updateStep } from '../../core/workflow/steps.ts';
import { readJson } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

export function mountWorkflowRoutes(app: Hono<AppEnv>): void {
  app.get('/workflows', async (c) => c.json(await listWorkflows(await serviceContext(c), {
    search: c.req.query('search'), limit: c.req.query('limit'), page: c.req.query('page'), offset: c.req.query('offset'), meta: c.req.query('meta'),
  })));
  app.post('/workflows', async (c) => c.json({ data: await createWorkflow(await serviceContext(c), await readJson(c)) }));
  app.get('/workflows/:id', async (c) => c.json({ data: await readWorkflow(await serviceContext(c), c.req.param('id')) }));
  app.patch('/workflows/:id', async (c) => c.json({ data: await updateWorkflow(await serviceContext(c), c.req.param('id'), await readJson(c)) }));
  app.delete('/workflows/:id', async (c) => {
    await deleteWorkflow(await serviceContext(c), c.req.param('id'));
    return c.body(null, 204);
  });
  app.post('/workflows/:id/activate', async (c) => c.json({ data: await activateWorkflow(await serviceContext(c), c.req.param('id')) }));
  app.post('/workflows/:id/deactivate', async (c) => c.json({ data: await deactivateWorkflow(await serviceContext(c), c.req.param('id')) }));

  app.post('/workflows/:id/steps', async (c) => c.json({ data: await createStep(await serviceContext(c), c.req.param('id'), await readJson(c)) }));
  app.patch('/workflows/:id/steps/:step', async (c) => c.json({
    data: await updateStep(await serviceContext(c), c.req.param('id'), c.req.param('step'), await readJson(c)),
  }));
  app.delete('/workflows/:id/steps/:step', async (c) => {
    await deleteStep(await serviceContext(c), c.req.param('id'), c.req.param('step'));
    return c.body(null, 204);
  });

  app.post('/workflows/:id/transitions', async (c) => c.json({ data: await createTransition(await serviceContext(c), c.req.param('id'), await readJson(c)) }));
  app.delete('/workflows/:id/transitions/:transition', async (c) => {
    await deleteTransition(await serviceContext(c), c.req.param('id'), c.req.param('transition'));
    return c.body(null, 204);
  });
}
