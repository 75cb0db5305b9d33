/** A list that can be reordered and nested: collections in folders, fields in groups. Rows are dragged with the
 * mouse (dropped before or after a row, or into a folder or group), and moved with the keyboard from each row's
 * handle: ↑/↓ one place (out of the group at its ends), → into the folder or group just above, ← out of its folder or
 * group. Each move is announced. The caller saves it (`onMove`: the moved row's new parent and siblings in order) and
 * renders the rows.
 *
 * The tree draws each move at once from its own arrangement, and keeps drawing that until the caller's nodes show
 * the same shape: the caller's cached data re-renders a timer later, and the next key press (input runs before
 * timers) must start from where the row is now, not from where it was. */
import { useId, useLayoutEffect, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';

export interface ReorderNode {
  id: string;
  /** Shown in announcements and the handle's name. */
  label: string;
  /** Whether other rows can be dropped into it. */
  container: boolean;
  /** Whether the row itself can move (a system field can't). */
  movable: boolean;
  children: ReorderNode[];
}

export type Placement = { where: 'before' | 'after' | 'inside'; target: string };

type Found = { node: ReorderNode; parent: ReorderNode | null; siblings: ReorderNode[]; index: number };

function find(nodes: ReorderNode[], id: string, parent: ReorderNode | null = null): Found | null {
  for (const [index, node] of nodes.entries()) {
    if (node.id === id) return { node, parent, siblings: nodes, index };
    const inner = find(node.children, id, node);
    if (inner) return inner;
  }
  return null;
}

function contains(node: ReorderNode, id: string): boolean {
  return node.id === id || node.children.some((c) => contains(c, id));
}

/** Where a keyboard key moves a row, or null when it can't go that way. */
export function keyPlacement(nodes: ReorderNode[], id: string, key: string): Placement | null {
  const at = find(nodes, id);
  if (!at) return null;
  const { siblings, index, parent } = at;
  switch (key) {
    case 'ArrowUp':
      if (index > 0) return { where: 'before', target: siblings[index - 1].id };
      return parent ? { where: 'before', target: parent.id } : null;
    case 'ArrowDown':
      if (index < siblings.length - 1) return { where: 'after', target: siblings[index + 1].id };
      return parent ? { where: 'after', target: parent.id } : null;
    case 'ArrowRight': {
      const above = siblings[index - 1];
      return above?.container ? { where: 'inside', target: above.id } : null;
    }
    case 'ArrowLeft':
      return parent ? { where: 'after', target: parent.id } : null;
    default:
      return null;
  }
}

/** The tree with `id` put at the placement (a row moved inside goes last), or null when it can't go there. */
export function applyPlacement<N extends ReorderNode>(nodes: N[], id: string, p: Placement): N[] | null {
  const moving = find(nodes, id);
  const target = find(nodes, p.target);
  if (!moving || !moving.node.movable || !target || p.target === id || contains(moving.node, p.target)) return null;
  if (p.where === 'inside' ? !target.node.container : target.parent !== null && !target.parent.container) return null;
  const without = (list: ReorderNode[]): ReorderNode[] => list.filter((n) => n.id !== id).map((n) => ({ ...n, children: without(n.children) }));
  const insert = (list: ReorderNode[]): ReorderNode[] => list.flatMap((n) => {
    if (n.id !== p.target) return [{ ...n, children: insert(n.children) }];
    if (p.where === 'inside') return [{ ...n, children: [...n.children, moving.node] }];
    return p.where === 'before' ? [moving.node, n] : [n, moving.node];
  });
  return insert(without(nodes)) as N[];
}

/** The new parent of a moved row and its siblings in order. */
export interface Move { parent: string | null; order: string[] }

function moveOf(nodes: ReorderNode[], id: string): Move | null {
  const at = find(nodes, id);
  return at ? { parent: at.parent?.id ?? null, order: at.siblings.map((n) => n.id) } : null;
}

const shape = (nodes: ReorderNode[]): string => nodes.map((n) => `${n.id}${n.children.length ? `(${shape(n.children)})` : ''}`).join(',');

/** The arrangement drawn with the caller's latest row data (the ids of `arranged`, the contents of `fresh`). */
function withData<N extends ReorderNode>(arranged: N[], fresh: N[]): N[] {
  const byId = new Map<string, N>();
  const index = (list: N[]): void => { for (const n of list) { byId.set(n.id, n); index(n.children as N[]); } };
  index(fresh);
  const build = (list: N[]): N[] => list.map((n) => ({ ...(byId.get(n.id) ?? n), children: build(n.children as N[]) }));
  return build(arranged);
}

function describe(nodes: ReorderNode[], moved: ReorderNode, p: Placement): string {
  const target = find(nodes, p.target);
  if (!target) return '';
  if (p.where === 'inside') return `${moved.label} moved into ${target.node.label}.`;
  const where = target.parent ? ` in ${target.parent.label}` : '';
  return `${moved.label} moved ${p.where} ${target.node.label}${where}.`;
}

export function ReorderTree<N extends ReorderNode>({ nodes, label, onMove, renderRow, disabled = false }: {
  nodes: N[];
  label: string;
  onMove(id: string, move: Move): void;
  /** The row's content; `handle` is the drag and keyboard handle to put at its start. */
  renderRow(node: N, handle: ReactNode, depth: number): ReactNode;
  disabled?: boolean;
}) {
  const hintId = useId();
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<Placement | null>(null);
  const [announcement, setAnnouncement] = useState('');
  // Moves drawn ahead of the caller's nodes: the arrangement after the last one, and the shapes from before the first
  // move to after the last. While the caller's nodes have one of the earlier shapes, they are behind.
  const [ahead, setAhead] = useState<{ arranged: N[]; shapes: string[] } | null>(null);
  const focusAfterMove = useRef<string | null>(null);
  const root = useRef<HTMLUListElement>(null);

  const current = shape(nodes);
  const at = ahead ? ahead.shapes.lastIndexOf(current) : -1;
  const behind = ahead !== null && at >= 0 && at < ahead.shapes.length - 1;
  const shown = behind ? withData(ahead.arranged, nodes) : nodes;
  // Caught up, or changed some other way (the server's order, another edit): the caller's nodes are drawn again.
  useLayoutEffect(() => { if (ahead && !behind) setAhead(null); }, [ahead, behind]);

  // The moved row is drawn at its new place (a new element when it changed parent): its handle gets focus back
  // before the next key press, unless the person has moved on to something else.
  useLayoutEffect(() => {
    const id = focusAfterMove.current;
    if (!id || !root.current) return;
    const handle = [...root.current.querySelectorAll<HTMLElement>('[data-reorder-handle]')].find((h) => h.dataset.reorderHandle === id);
    const active = document.activeElement;
    if (!handle || active === handle) return;
    if (active && active !== document.body && !root.current.contains(active)) return;
    handle.focus();
  });

  const move = (id: string, p: Placement): void => {
    const arranged = applyPlacement(shown, id, p);
    const moving = find(shown, id);
    const result = arranged && moveOf(arranged, id);
    if (!arranged || !moving || !result) return;
    focusAfterMove.current = id;
    setTimeout(() => { if (focusAfterMove.current === id) focusAfterMove.current = null; }, 2000);
    setAnnouncement(describe(shown, moving.node, p));
    setAhead({ arranged, shapes: [...(behind && ahead ? ahead.shapes : [current]), shape(arranged)] });
    onMove(id, result);
  };

  const onKey = (e: KeyboardEvent, node: ReorderNode): void => {
    if (!['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'].includes(e.key)) return;
    e.preventDefault();
    const p = keyPlacement(shown, node.id, e.key);
    if (p) move(node.id, p);
    else setAnnouncement(`${node.label} can't move further that way.`);
  };

  const zone = (e: DragEvent<HTMLElement>, node: ReorderNode): Placement['where'] => {
    const box = e.currentTarget.getBoundingClientRect();
    const y = (e.clientY - box.top) / Math.max(1, box.height);
    if (node.container) return y < 0.25 ? 'before' : y > 0.75 ? 'after' : 'inside';
    return y < 0.5 ? 'before' : 'after';
  };

  const render = (list: N[], depth: number): ReactNode => list.map((node) => {
    const handle = node.movable && !disabled ? (
      <button type="button" className="reorder-handle" data-reorder-handle={node.id} aria-label={`Move ${node.label}`}
        aria-describedby={hintId} title="Drag, or use the arrow keys, to move" onKeyDown={(e) => onKey(e, node)}>
        <span aria-hidden="true">⋮⋮</span>
      </button>
    ) : <span className="reorder-handle placeholder" aria-hidden="true" />;
    const mark = over?.target === node.id && dragging !== node.id ? ` drop-${over.where}` : '';
    return (
      <li key={node.id} className={dragging === node.id ? 'reorder-item dragging' : 'reorder-item'}>
        <div className={`reorder-row${mark}`} draggable={node.movable && !disabled}
          onDragStart={(e) => {
            e.dataTransfer.setData('text/plain', node.id);
            e.dataTransfer.effectAllowed = 'move';
            setDragging(node.id);
          }}
          onDragEnd={() => { setDragging(null); setOver(null); }}
          onDragOver={(e) => {
            if (!dragging || dragging === node.id) return;
            e.preventDefault();
            e.dataTransfer.dropEffect = 'move';
            const where = zone(e, node);
            if (over?.target !== node.id || over.where !== where) setOver({ where, target: node.id });
          }}
          onDragLeave={(e) => { if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver((o) => (o?.target === node.id ? null : o)); }}
          onDrop={(e) => {
            e.preventDefault();
            const id = dragging ?? e.dataTransfer.getData('text/plain');
            const where = zone(e, node);
            setDragging(null);
            setOver(null);
            if (id) move(id, { where, target: node.id });
          }}>
          {renderRow(node, handle, depth)}
        </div>
        {node.children.length > 0 && <ul className="reorder-list nested">{render(node.children as N[], depth + 1)}</ul>}
      </li>
    );
  });

  return (
    <>
      <p id={hintId} className="visually-hidden">Use the up and down arrow keys to move, right arrow to move into the group above, left arrow to move out of a group.</p>
      <ul ref={root} className="reorder-list" aria-label={label}>{render(shown, 0)}</ul>
      <p className="visually-hidden" role="status" aria-live="polite">{announcement}</p>
    </>
  );
}
