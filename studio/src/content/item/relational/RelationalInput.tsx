/** Relational fields: an M2O (or file) as the related item's name with Choose / Clear, and an O2M or M2M as the
 * list of related items with add (the picker dialog), remove and, when the relation has a sort field, drag to
 * reorder with Move up / Move down buttons as the keyboard's way. The value stays in the shape the item was read
 * in (objects), so the payload builder (payload.ts) can tell what changed. */
import { useState } from 'react';
import { can, fieldsOf, primaryKeyOf, titleOf } from '../../schema.ts';
import type { EditorContext } from '../ItemPage.tsx';
import { displayOf } from '../display.ts';
import { keyOfValue, type FieldInfo } from '../model.ts';
import { labelText } from '../FieldInput.tsx';
import { ItemPickerDialog } from './ItemPickerDialog.tsx';
import { FileInput } from './FileInput.tsx';
import { NewRelatedDialog } from './NewRelatedDialog.tsx';

type Row = Record<string, unknown>;

export interface RelationalProps {
  info: FieldInfo;
  ctx: EditorContext;
  id: string;
  labelId: string;
  describedBy: string | undefined;
  value: unknown;
  stored: unknown;
  onChange(value: unknown): void;
  disabled: boolean;
  invalid: boolean;
  isNew: boolean;
}

export function RelationalInput(props: RelationalProps) {
  if (props.info.kind === 'file') return <FileInput {...props} />;
  if (props.info.kind === 'm2o') return <ManyToOne {...props} />;
  return <RelatedList {...props} />;
}

function ManyToOne({ info, ctx, id, labelId, describedBy, value, onChange, disabled, invalid }: RelationalProps) {
  const [open, setOpen] = useState(false);
  const related = info.related!;
  const fields = fieldsOf(ctx.allFields, related);
  const pk = primaryKeyOf(fields);
  const key = keyOfValue(value, pk);
  const name = key === null ? '' : displayOf(value, related, ctx.collections, fields, pk);
  return (
    <div className="m2o" aria-invalid={invalid || undefined}>
      <div className="m2o-value" id={`${id}-value`}>
        {key === null ? <span className="muted">None selected</span> : <><span className="m2o-name">{name}</span>{name !== `#${key}` && <span className="muted"> #{String(key)}</span>}</>}
      </div>
      {!disabled && (
        <>
          <button type="button" className="btn btn-small" id={id} aria-labelledby={`${labelId} ${id}`} aria-describedby={describedBy} aria-haspopup="dialog"
            onClick={() => setOpen(true)}>{key === null ? 'Choose' : 'Change'}</button>
          {key !== null && <button type="button" className="btn btn-small btn-ghost" aria-label={`Clear ${labelText(info)}`} onClick={() => onChange(null)}>Clear</button>}
        </>
      )}
      {disabled && <span id={id} className="visually-hidden" aria-describedby={describedBy}>{labelText(info)}: read only</span>}
      <ItemPickerDialog open={open} collection={related} allFields={ctx.allFields} collections={ctx.collections} exclude={key === null ? [] : [key]}
        title={`Choose ${labelText(info).toLowerCase()} (${titleOf(related)})`}
        onClose={() => setOpen(false)} onPick={(row) => { onChange(row); setOpen(false); requestAnimationFrame(() => document.getElementById(id)?.focus()); }} />
    </div>
  );
}

function RelatedList({ info, ctx, id, labelId, describedBy, value, onChange, disabled }: RelationalProps) {
  const [open, setOpen] = useState(false);
  const [creating, setCreating] = useState(false);
  const [dragging, setDragging] = useState<number | null>(null);
  const [announce, setAnnounce] = useState('');
  const m2m = info.kind === 'm2m';
  const far = info.related!;
  const farFields = fieldsOf(ctx.allFields, far);
  const farPk = primaryKeyOf(farFields);
  const junctionField = info.junction?.field;
  const rows: Row[] = Array.isArray(value) ? value.map((v) => (v && typeof v === 'object' ? v as Row : (m2m ? { __key: v } : { [farPk]: v }))) : [];
  const farOf = (row: Row): unknown => (m2m ? row[junctionField!] : row);
  const sortable = Boolean(info.sortField) && !disabled;
  const chosen = rows.map((r) => keyOfValue(farOf(r), farPk)).filter((k): k is string | number => k !== null);
  const nameOf = (row: Row) => {
    const target = farOf(row);
    if (target === undefined && '__key' in row) return `Link #${String(row.__key)}`;
    return displayOf(target, far, ctx.collections, farFields, farPk) || 'New item';
  };

  const move = (from: number, to: number) => {
    if (to < 0 || to >= rows.length || from === to) return;
    const next = [...rows];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved);
    onChange(next);
    setAnnounce(`${nameOf(moved)} moved to position ${to + 1} of ${rows.length}.`);
  };

  return (
    <div className="related-list" role="group" aria-labelledby={labelId} aria-describedby={describedBy} id={id} tabIndex={-1}>
      {rows.length === 0 ? <p className="muted related-empty">No items yet.</p> : (
        <ol className="related-rows" aria-labelledby={labelId}>
          {rows.map((row, i) => {
            const name = nameOf(row);
            const key = keyOfValue(farOf(row), farPk);
            return (
              <li key={`${String(key)}-${i}`} className={`related-row${dragging === i ? ' dragging' : ''}`}
                draggable={sortable}
                onDragStart={(e) => { setDragging(i); e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', String(i)); }}
                onDragOver={(e) => { if (dragging !== null) { e.preventDefault(); e.dataTransfer.dropEffect = 'move'; } }}
                onDrop={(e) => { e.preventDefault(); if (dragging !== null) move(dragging, i); setDragging(null); }}
                onDragEnd={() => setDragging(null)}>
                {sortable && <span className="drag-handle" aria-hidden="true" title="Drag to reorder">⋮⋮</span>}
                <span className="related-name">{name}</span>
                {key !== null ? <span className="muted related-key">#{String(key)}</span> : <span className="badge">New</span>}
                {sortable && (
                  <span className="related-move">
                    <button type="button" className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${name} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>↑</button>
                    <button type="button" className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${name} down`} disabled={i === rows.length - 1} onClick={() => move(i, i + 1)}>↓</button>
                  </span>
                )}
                {!disabled && (
                  <button type="button" className="btn btn-small btn-ghost" aria-label={`Remove ${name}`}
                    onClick={() => { onChange(rows.filter((_, j) => j !== i)); setAnnounce(`${name} removed.`); }}>Remove</button>
                )}
              </li>
            );
          })}
        </ol>
      )}
      {!disabled && (
        <div className="related-actions">
          <button type="button" className="btn btn-small" aria-haspopup="dialog" onClick={() => setOpen(true)}>Add existing {titleOf(far).toLowerCase()}</button>
          {can(ctx.perms, ctx.admin, far, 'create') && (
            <button type="button" className="btn btn-small btn-ghost" aria-haspopup="dialog" onClick={() => setCreating(true)}>Create new</button>
          )}
        </div>
      )}
      <span className="visually-hidden" aria-live="polite">{announce}</span>
      <NewRelatedDialog open={creating} collection={far} ctx={ctx} onClose={() => setCreating(false)}
        leaveOut={m2m ? [] : [info.relation?.field, info.sortField]}
        onCreate={(row) => {
          onChange([...rows, m2m ? { [junctionField!]: row } : row]);
          setAnnounce(`${displayOf(row, far, ctx.collections, farFields, farPk) || 'New item'} added; it is created when you save.`);
          setCreating(false);
        }} />
      <ItemPickerDialog open={open} collection={far} allFields={ctx.allFields} collections={ctx.collections} exclude={chosen}
        title={`Add to ${labelText(info).toLowerCase()} (${titleOf(far)})`}
        onClose={() => setOpen(false)}
        onPick={(row) => {
          onChange([...rows, m2m ? { [junctionField!]: row } : row]);
          setAnnounce(`${displayOf(row, far, ctx.collections, farFields, farPk)} added.`);
          setOpen(false);
        }} />
    </div>
  );
}
