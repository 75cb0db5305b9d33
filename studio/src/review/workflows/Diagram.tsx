/** The workflow as a diagram: steps in ranks from the start (./layout.ts), transitions as arrows labelled with
 * their trigger. The arrows are an SVG picture; the steps are buttons laid over it, in a list in reading order
 * (rank by rank, left to right), with one tab stop: the arrow keys, Home and End move along the list and select as
 * they go; each button is named by the step, its type, who it is assigned to and its problems. The transitions in
 * words are the list under the diagram (TransitionsPanel), which the picture points to. Memoised: typing in the
 * step's form does not draw the diagram again. */
import { memo, useId, useMemo, useRef, type KeyboardEvent } from 'react';
import { NODE_H, NODE_W, type Layout } from './layout.ts';
import { TYPE_LABELS, type Step, type Transition } from './data.ts';

export interface NodeInfo {
  /** Who or what the step involves, in a few words ("Role Editors · all"). */
  summary: string;
  problems: string[];
  edited: boolean;
}

export const Diagram = memo(function Diagram({ steps, transitions, layout, info, selected, onSelect, zoom, describedBy }: {
  steps: Step[];
  transitions: Transition[];
  layout: Layout;
  info: Map<string, NodeInfo>;
  selected: string | null;
  onSelect(id: string): void;
  zoom: number;
  /** The id of the transitions' list in words. */
  describedBy: string;
}) {
  const markerId = useId().replace(/:/g, '');
  const listRef = useRef<HTMLOListElement>(null);
  const byId = useMemo(() => new Map(steps.map((s) => [s.id, s])), [steps]);
  const triggerOf = useMemo(() => new Map(transitions.map((t) => [t.id, t])), [transitions]);
  const focusable = selected && layout.nodes.has(selected) ? selected : layout.order[0];

  const move = (e: KeyboardEvent<HTMLOListElement>): void => {
    const current = (e.target as HTMLElement).closest<HTMLElement>('[data-step]')?.dataset.step;
    if (!current) return;
    const i = layout.order.indexOf(current);
    let next: number | null = null;
    if (e.key === 'ArrowDown' || e.key === 'ArrowRight') next = Math.min(layout.order.length - 1, i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') next = Math.max(0, i - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = layout.order.length - 1;
    if (next === null) return;
    e.preventDefault();
    const id = layout.order[next];
    onSelect(id);
    listRef.current?.querySelector<HTMLElement>(`[data-step="${CSS.escape(id)}"]`)?.focus();
  };

  const width = layout.width;
  const height = layout.height;
  return (
    <div className="wf-canvas" style={{ width: width * zoom, height: height * zoom }}>
      <div className="wf-stage" style={{ width, height, transform: zoom === 1 ? undefined : `scale(${zoom})` }}>
        <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} className="wf-edges" role="img"
          aria-label={`Diagram of ${steps.length} steps and ${transitions.length} transitions`} aria-describedby={describedBy}>
          <defs>
            {(['approve', 'reject', 'always', 'condition'] as const).map((t) => (
              <marker key={t} id={`${markerId}-${t}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
                <path d="M0,0 L10,5 L0,10 z" className={`wf-arrow wf-${t}`} />
              </marker>
            ))}
          </defs>
          {layout.edges.map((e) => {
            const t = triggerOf.get(e.id)!;
            const touches = selected !== null && (t.from_step_id === selected || t.to_step_id === selected);
            return (
              <path key={e.id} d={e.d} className={`wf-edge wf-${t.trigger}${touches ? ' wf-edge-current' : ''}${e.back ? ' wf-edge-back' : ''}`}
                markerEnd={`url(#${markerId}-${t.trigger})`} />
            );
          })}
          {layout.edges.map((e) => {
            const t = triggerOf.get(e.id)!;
            const text = t.condition && t.trigger === 'condition' ? 'condition*' : t.trigger;
            const w = text.length * 6.4 + 12;
            return (
              <g key={e.id} className={`wf-edge-label wf-${t.trigger}`} transform={`translate(${e.label.x - w / 2},${e.label.y - 9})`}>
                <rect width={w} height={18} rx={9} />
                <text x={w / 2} y={12.5} textAnchor="middle">{text}</text>
              </g>
            );
          })}
        </svg>
        <ol className="wf-nodes" ref={listRef} aria-label="Steps, from the start" onKeyDown={move}>
          {layout.order.map((id) => {
            const step = byId.get(id)!;
            const box = layout.nodes.get(id)!;
            const about = info.get(id);
            const problems = about?.problems ?? [];
            return (
              <li key={id} style={{ left: box.x, top: box.y, width: NODE_W, height: NODE_H }}>
                <button type="button" data-step={id} tabIndex={id === focusable ? 0 : -1}
                  aria-current={id === selected ? 'true' : undefined} title={problems.map(shortProblem).join('\n') || undefined}
                  className={`wf-node wf-type-${step.type}${problems.length ? ' wf-node-invalid' : ''}`} onClick={() => onSelect(id)}>
                  {/* The name reads first; the type is drawn above it (CSS order). */}
                  <span className="wf-node-name">{step.name}<span className="wf-sr">, </span></span>
                  <span className="wf-node-type">
                    {TYPE_LABELS[step.type]}<span className="wf-sr"> step.</span>
                    {about?.edited && <span className="wf-node-edited"> · edited</span>}
                  </span>
                  {problems.length > 0 ? (
                    <>
                      <span className="wf-node-problem" aria-hidden="true">⚠ {shortProblem(problems[0])}{problems.length > 1 ? ` (+${problems.length - 1})` : ''}</span>
                      <span className="visually-hidden"> {problems.length === 1 ? 'Problem' : `${problems.length} problems`}: {problems.join(' ')}</span>
                    </>
                  ) : about?.summary && <span className="wf-node-meta">{about.summary}</span>}
                </button>
              </li>
            );
          })}
        </ol>
      </div>
    </div>
  );
});

/** 'Approval step "review" has no assignees.' on the step itself: "Has no assignees." */
export function shortProblem(message: string): string {
  const rest = message.replace(/^\w+ step "[^"]*"\s*/, '');
  return rest === message ? message : rest.charAt(0).toUpperCase() + rest.slice(1);
}
