/** A list that can be reordered and nested: collections in folders, fields in groups. Rows are dragged with the
 * mouse (dropped before or after a row, or into a folder or group), and moved with the keyboard from each row's
 * handle: ↑/↓ one place (out of the group at its ends), → into the folder or group just above, ← out of its folder or
 * group. Each move is announced. The caller saves it (`onMove`) and renders the rows. */
import { useEffect, useId, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';

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

function describe(nodes: ReorderNode[], moved: ReorderNode, p: Placement): string {
  const target = find(nodes, p.target);
  if (!target) return '';
  if (p.where === 'inside') return `${moved.label} moved into ${target.node.label}.`;
  const where = target.parent ? ` in ${target.parent.label}` : '';
  return `${moved.label} moved ${p.where} ${target.node.label}${where}.`;
}

export function ReorderTree({ nodes, label, onMove, renderRow, disabled = false }: {
  nodes: ReorderNode[];
  label: string;
  onMove(id: string, placement: Placement): void;
  /** The row's content; `handle` is the drag and keyboard handle to put at its start. */
  renderRow(node: ReorderNode, handle: ReactNode, depth: number): ReactNode;
  disabled?: boolean;
}) {
  const hintId = useId();
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<Placement | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const focusAfterMove = useRef<string | null>(null);
  const root = useRef<HTMLUListElement>(null);

  // The moved row is drawn at its new place (a new element when it changed parent, possibly a render later, when the
  // cached data catches up): its handle gets focus back, unless the person has moved on to something else.
  useEffect(() => {
    const id = focusAfterMove.current;
    if (!id || !root.current) return;
    const handle = [...root.current.querySelectorAll<HTMLElement>('[data-reorder-handle]')].find((h) => h.dataset.reorderHandle === id);
    const active = document.activeElement;
    if (!handle || active === handle) return;
    if (active && active !== document.body && !root.current.contains(active)) return;
    handle.focus();
  });

  const move = (id: string, p: Placement): void => {
    const moving = find(nodes, id);
    if (!moving || !moving.node.movable) return;
    if (p.target === id || contains(moving.node, p.target)) return;
    const target = find(nodes, p.target);
    if (!target || (p.where === 'inside' && !target.node.container)) return;
    if (p.where !== 'inside' && target.parent && !target.parent.container) return;
    focusAfterMove.current = id;
    setTimeout(() => { if (focusAfterMove.current === id) focusAfterMove.current = null; }, 2000);
    setAnnouncement(describe(nodes, moving.node, p));
    onMove(id, p);
  };

  const onKey = (e: KeyboardEvent, node: ReorderNode): void => {
    const p = keyPlacement(nodes, node.id, e.key);
    if (!['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'].includes(e.key)) return;
    e.preventDefault();
    if (p) move(node.id, p);
    else setAnnouncement(`${node.label} can't move further that way.`);
  };

  const zone = (e: DragEvent<HTMLElement>, node: ReorderNode): Placement['where'] => {
    const box = e.currentTarget.getBoundingClientRect();
    const y = (e.clientY - box.top) / Math.max(1, box.height);
    if (node.container) return y < 0.25 ? 'before' : y > 0.75 ? 'after' : 'inside';
    return y < 0.5 ? 'before' : 'after';
  };

  const render = (list: ReorderNode[], depth: number): ReactNode => list.map((node) => {
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
        {node.children.length > 0 && <ul className="reorder-list nested">{render(node.children, depth + 1)}</ul>}
      </li>
    );
  });

  return (
    <>
      <p id={hintId} className="visually-hidden">Use the up and down arrow keys to move, right arrow to move into the group above, left arrow to move out of a group.</p>
      <ul ref={root} className="reorder-list" aria-label={label}>{render(nodes, 0)}</ul>
      <p className="visually-hidden" role="status" aria-live="polite">{announcement}</p>
    </>
  );
}
