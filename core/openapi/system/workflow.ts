/** Workflow definitions, the reviewers' inbox and instance actions (functions/routes/workflow*.ts). */
import { operation } from '../operation.ts';
import { PARAMETERS } from '../components.ts';
import { TASK_ACTIONS } from '../../workflow/types.ts';
import type { ParameterObject, ResponseObject, SchemaObject } from '../types.ts';
import { arrayOf, endpoint, freeObject, listOf, pathParam, type Endpoint, type SystemContext } from './endpoint.ts';

const str: SchemaObject = { type: 'string' };
const tag = 'Workflows';
const LIST_QUERY: ParameterObject[] = [PARAMETERS.Search, PARAMETERS.Limit, PARAMETERS.Page, PARAMETERS.Offset, PARAMETERS.Meta];
const PAGE_QUERY: ParameterObject[] = [PARAMETERS.Limit, PARAMETERS.Page, PARAMETERS.Offset];

export function workflowEndpoints(ctx: SystemContext): Endpoint[] {
  const workflow = ctx.record('svc_workflows');
  const step = ctx.record('svc_workflow_steps');
  const transition = ctx.record('svc_workflow_transitions');
  const instance = ctx.record('svc_workflow_instances');
  const id = pathParam('id', 'Workflow id', ctx.key('svc_workflows'));
  const stepId = pathParam('step', 'Step id', ctx.key('svc_workflow_steps'));
  const instanceId = pathParam('id', 'Instance id', ctx.key('svc_workflow_instances'));
  const nullableStr: SchemaObject = { type: 'string', nullable: true };
  const task: SchemaObject = {
    type: 'object', description: 'A review task: an active step of a running instance (core/workflow/inbox.ts)',
    required: ['id', 'step_id', 'instance_id', 'workflow_name', 'step_name', 'collection', 'item_id', 'version_id', 'status', 'activated_at', 'timeout_at', 'actions_available'],
    properties: {
      id: { type: 'string', description: 'The instance step (what the step actions name)' },
      step_id: str, instance_id: str, workflow_name: str, step_name: str, collection: str,
      item_id: nullableStr, version_id: nullableStr, status: str, activated_at: nullableStr, timeout_at: nullableStr,
      actions_available: arrayOf({ type: 'string', enum: [...TASK_ACTIONS] }),
      assignees: { ...arrayOf(str), description: 'Only in /workflow-tasks/all' },
    },
  };
  const tasks: SchemaObject = { type: 'object', properties: { data: arrayOf(task), meta: { type: 'object', properties: { total_count: { type: 'integer' } } } } };
  const comment: SchemaObject = { type: 'object', properties: { comment: str } };
  const problem: SchemaObject = {
    type: 'object', required: ['message'],
    properties: { message: str, step: { type: 'string', description: 'Key of the step the problem is about' } },
  };
  const activationRefused: ResponseObject = {
    description: 'Invalid payload, or a graph that cannot run (extensions.problems)',
    content: { 'application/json': { schema: {
      type: 'object', required: ['errors'],
      properties: { errors: arrayOf({
        type: 'object', required: ['message', 'extensions'],
        properties: {
          message: str,
          extensions: {
            type: 'object', required: ['code'], additionalProperties: true,
            properties: { code: str, reason: { type: 'string', description: 'graph_problems when the graph cannot run' }, problems: arrayOf(problem) },
          },
        },
      }) },
    } } },
  };
  const out: Endpoint[] = [
    endpoint('get', '/workflows', operation({
      id: 'readWorkflows', summary: 'List workflows', tag, raw: true, parameters: LIST_QUERY,
      description: 'Workflows by name, each with `step_count` (its number of steps). `search` looks in the name and the collection; `limit` defaults to QUERY_LIMIT_DEFAULT.',
      data: listOf(workflow),
    })),
    endpoint('post', '/workflows', operation({ id: 'createWorkflow', summary: 'Create a workflow', tag, body: workflow, data: workflow })),
    endpoint('get', '/workflows/{id}', operation({
      id: 'readWorkflow', summary: 'Read a workflow with its steps and transitions', tag, parameters: [id], pathParams: true,
      description: '`problems` lists what keeps the graph from being activated (as the activation refusal does; empty when it can be).',
      data: { type: 'object', additionalProperties: true, properties: { steps: arrayOf(step), transitions: arrayOf(transition), problems: arrayOf(problem) } },
    })),
    endpoint('patch', '/workflows/{id}', operation({ id: 'updateWorkflow', summary: 'Update a workflow', tag, parameters: [id], body: workflow, data: workflow, pathParams: true })),
    endpoint('delete', '/workflows/{id}', operation({ id: 'deleteWorkflow', summary: 'Delete a workflow', tag, parameters: [id], status: 204, pathParams: true })),
    endpoint('post', '/workflows/{id}/activate', operation({
      id: 'activateWorkflow', summary: 'Activate a workflow', tag, parameters: [id], data: workflow, pathParams: true,
      description: 'Refused (400 INVALID_PAYLOAD, `extensions.reason` graph_problems) while the graph cannot run; `extensions.problems` lists each problem with the key of the step it is about.',
      extra: { 400: activationRefused },
    })),
    endpoint('post', '/workflows/{id}/deactivate', operation({ id: 'deactivateWorkflow', summary: 'Deactivate a workflow', tag, parameters: [id], data: workflow, pathParams: true })),
    endpoint('post', '/workflows/{id}/steps', operation({ id: 'createWorkflowStep', summary: 'Add a step', tag, parameters: [id], body: step, data: step, pathParams: true })),
    endpoint('patch', '/workflows/{id}/steps/{step}', operation({ id: 'updateWorkflowStep', summary: 'Update a step', tag, parameters: [id, stepId], body: step, data: step, pathParams: true })),
    endpoint('delete', '/workflows/{id}/steps/{step}', operation({ id: 'deleteWorkflowStep', summary: 'Delete a step', tag, parameters: [id, stepId], status: 204, pathParams: true })),
    endpoint('post', '/workflows/{id}/transitions', operation({ id: 'createWorkflowTransition', summary: 'Add a transition', tag, parameters: [id], body: transition, data: transition, pathParams: true })),
    endpoint('delete', '/workflows/{id}/transitions/{transition}', operation({
      id: 'deleteWorkflowTransition', summary: 'Delete a transition', tag, status: 204, pathParams: true,
      parameters: [id, pathParam('transition', 'Transition id', ctx.key('svc_workflow_transitions'))],
    })),
    endpoint('get', '/workflow-tasks', operation({ id: 'readWorkflowTasks', summary: 'The caller\'s review tasks', tag, data: tasks, raw: true, parameters: PAGE_QUERY,
      description: 'Oldest first; every task unless `limit` is given. `meta.total_count` counts them all.' })),
    endpoint('get', '/workflow-tasks/count', operation({ id: 'countWorkflowTasks', summary: 'Number of the caller\'s open tasks', tag, data: { type: 'object', properties: { count: { type: 'integer' } } } })),
    endpoint('get', '/workflow-tasks/all', operation({ id: 'readAllWorkflowTasks', summary: 'Tasks across reviewers (admin)', tag, data: tasks, raw: true, parameters: PAGE_QUERY,
      description: 'Oldest first, with their assignees; every task unless `limit` is given. `meta.total_count` counts them all.' })),
    endpoint('get', '/workflow-instances/{id}', operation({
      id: 'readWorkflowInstance', summary: 'An instance with its steps, actions and workflow steps', tag, parameters: [instanceId], data: freeObject(), pathParams: true,
    })),
    endpoint('post', '/workflow-instances/{id}/cancel', operation({
      id: 'cancelWorkflowInstance', summary: 'Cancel a running instance (admin)', tag, parameters: [instanceId], body: comment, bodyRequired: false, data: instance, pathParams: true,
    })),
  ];
  const actions: [string, SchemaObject][] = [
    ['approve', comment],
    ['reject', { type: 'object', required: ['comment'], properties: { comment: str } }],
    ['delegate', { type: 'object', required: ['to_user'], properties: { to_user: { type: 'string', format: 'uuid' }, comment: str } }],
    ['comment', { type: 'object', required: ['comment'], properties: { comment: str } }],
  ];
  for (const [action, body] of actions) {
    out.push(endpoint('post', `/workflow-instances/{id}/steps/{step}/${action}`, operation({
      id: `${action}WorkflowStep`, summary: `${action[0].toUpperCase()}${action.slice(1)} an instance step`, tag, pathParams: true,
      parameters: [instanceId, pathParam('step', 'Instance step id')], body, bodyRequired: action !== 'approve', data: freeObject(),
    })));
  }
  return out;
}
