/** What keeps a workflow's graph from running (checked at activation, and given with GET /workflows/{id} so a
 * designer can show them as the graph changes): exactly one start step, an end step reachable from it, approval
 * and notification steps with assignees, condition steps with a condition. */
import { isObject } from './input.ts';
import type { StepRow, TransitionRow } from './types.ts';

/** One reason a graph cannot run; `step` is the key of the step it is about. */
export interface GraphProblem { message: string; step?: string }

/** The problems that keep a graph from running (empty when it can be activated). */
export function graphProblems(steps: StepRow[], transitions: TransitionRow[]): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const starts = steps.filter((s) => s.type === 'start');
  if (starts.length !== 1) problems.push({ message: `A workflow needs exactly one start step (it has ${starts.length}).` });
  for (const s of steps) {
    if (s.type === 'approval' && (!s.assign_type || !s.assign_value)) problems.push({ message: `Approval step "${s.key}" has no assignees.`, step: s.key });
    if (s.type === 'notification' && (!s.assign_type || !s.assign_value)) problems.push({ message: `Notification step "${s.key}" has no recipients.`, step: s.key });
    if (s.type === 'condition' && !isObject(s.options?.condition) && !transitions.some((t) => t.from_step_id === s.id && t.condition)) {
      problems.push({ message: `Condition step "${s.key}" has no condition.`, step: s.key });
    }
  }
  if (starts.length === 1) {
    const seen = new Set([starts[0].id]);
    const queue = [starts[0].id];
    while (queue.length) {
      const id = queue.shift()!;
      for (const t of transitions) if (t.from_step_id === id && !seen.has(t.to_step_id)) { seen.add(t.to_step_id); queue.push(t.to_step_id); }
    }
    if (!steps.some((s) => s.type === 'end' && seen.has(s.id))) problems.push({ message: 'No end step is reachable from the start step.' });
  }
  return problems;
}
