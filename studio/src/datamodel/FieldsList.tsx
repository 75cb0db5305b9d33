/** A collection's fields in form order, with their groups: type, interface and what is set on each (required,
 * hidden, unique, a relation...), reordered by dragging a row or with its move buttons (one batch request: every
 * field's sort), opened for editing, deleted once the field's name is typed. New fields, groups and relations
 * start here. */
import { useMemo, useState, type DragEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { fieldsOf, relationFor, titleOf, type Collection, type Field, type Relation } from '../content/schema.ts';
import { isGroup } from '../content/item/model.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { refreshSchema, typeLabel } from './data.ts';
import { FieldDialog } from './FieldDialog.tsx';
import { RelationWizard, type RelationKind } from './RelationWizard.tsx';

const RELATION_WORDS: Record<string, string> = { m2o: 'Many to one', file: 'File', o2m: 'One to many', m2m: 'Many to many', files: 'Files', m2a: 'Many to any' };

interface Row { field: Field; depth: number }

/** Top-level fields, each group followed by its children, in meta.sort order. */
function rowsOf(fields: Field[]): Row[] {
  const names = new Set(fields.filter(isGroup).map((f) => f.field));
  const out: Row[] = [];
  const walk = (group: string | null, depth: number): void => {
    for (const f of fields.filter((x) => (x.meta?.group && names.has(x.meta.group) ? x.meta.group : null) === group)) {
      out.push({ field: f, depth });
      if (isGroup(f) && depth < 4) walk(f.field, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

export function FieldsList({ collection, fields: all, relations, collections }: { collection: string; fields: Field[]; relations: Relation[]; collections: Collection[] }) {
  const client = useQueryClient();
  const fields = useMemo(() => fieldsOf(all, collection), [all, collection]);
  const rows = useMemo(() => rowsOf(fields), [fields]);
  const [editing, setEditing] = useState<Field | 'new' | 'group' | null>(null);
  const [wizard, setWizard] = useState<RelationKind | null>(null);
  const [deleting, setDeleting] = useState<Field | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  /** Siblings share a group; moving renumbers them all (and keeps everyone else's numbers). */
  async function reorder(name: string, target: string, focus?: string): Promise<void> {
    const me = fields.find((f) => f.field === name);
    const other = fields.find((f) => f.field === target);
    if (!me || !other || (me.meta?.group ?? null) !== (other.meta?.group ?? null) || name === target || busy) return;
    const siblings = rows.map((r) => r.field).filter((f) => (f.meta?.group ?? null) === (me.meta?.group ?? null)).map((f) => f.field);
    const without = siblings.filter((f) => f !== name);
    const at = without.indexOf(target) + (siblings.indexOf(name) < siblings.indexOf(target) ? 1 : 0);
    without.splice(at, 0, name);
    setBusy(true);
    setError(null);
    try {
      await request('PATCH', `/fields/${encodeURIComponent(collection)}`, { body: without.map((f, i) => ({ field: f, meta: { sort: i + 1 } })) });
      await refreshSchema(client);
      if (focus) requestAnimationFrame(() => document.getElementById(focus)?.focus());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const siblingsOf = (f: Field): Field[] => rows.map((r) => r.field).filter((x) => (x.meta?.group ?? null) === (f.meta?.group ?? null));
  const onDrop = (e: DragEvent, target: string): void => {
    e.preventDefault();
    if (dragging) void reorder(dragging, target);
    setDragging(null);
  };

  return (
    <div className="dm-fields">
      <div className="actions-row">
        <button type="button" className="btn btn-primary" onClick={() => { setNotice(null); setEditing('new'); }}>Add field</button>
        <button type="button" className="btn" onClick={() => { setNotice(null); setEditing('group'); }}>Add group</button>
        <span className="dm-relation-buttons" role="group" aria-label="Add a relation">
          <span className="muted">Relation:</span>
          {(['m2o', 'o2m', 'm2m', 'm2a'] as const).map((k) => (
            <button key={k} type="button" className="btn btn-small" onClick={() => { setNotice(null); setWizard(k); }}>{RELATION_WORDS[k]}</button>
          ))}
        </span>
      </div>
      {notice && <p className="notice notice-success" role="status">{notice}</p>}
      {error !== null && <ErrorNotice error={error} title="Not moved:" />}
      <div className="table-wrap" aria-busy={busy}>
        <table className="grid dm-table dm-field-table">
          <caption className="visually-hidden">Fields of {titleOf(collection)}</caption>
          <thead><tr><th scope="col"><span className="visually-hidden">Drag to reorder</span></th><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Interface</th>
            <th scope="col">Set on it</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {rows.map(({ field: f, depth }) => {
              const rel = relationFor(relations, collection, f.field);
              const siblings = siblingsOf(f);
              const at = siblings.findIndex((x) => x.field === f.field);
              const label = titleOf(f.field);
              const flags = [
                f.schema?.is_primary_key && 'Primary key',
                rel && RELATION_WORDS[rel.kind] && `${RELATION_WORDS[rel.kind]}${rel.kind === 'm2o' || rel.kind === 'file' ? ` → ${titleOf(rel.relation.related_collection ?? '')}` : rel.kind === 'o2m' ? ` ← ${titleOf(rel.relation.collection)}` : ''}`,
                f.meta?.required && 'Required', f.meta?.readonly && 'Read only', f.meta?.hidden && 'Hidden',
                f.schema?.is_unique && !f.schema?.is_primary_key && 'Unique', f.schema?.is_indexed && !f.schema?.is_unique && !f.schema?.is_primary_key && 'Indexed',
                f.meta?.validation && 'Validation', (f.meta?.conditions?.length ?? 0) > 0 && 'Conditions',
              ].filter(Boolean) as string[];
              return (
                <tr key={f.field} draggable={!busy} onDragEnd={() => setDragging(null)}
                  onDragStart={(e) => { setDragging(f.field); e.dataTransfer.effectAllowed = 'move'; e.dataTransfer.setData('text/plain', f.field); }}
                  onDragOver={(e) => { if (dragging && dragging !== f.field) { e.preventDefault(); e.dataTransfer.dropEffect = 'move'; } }} onDrop={(e) => onDrop(e, f.field)}
                  className={dragging === f.field ? 'dragging' : undefined}>
                  <td className="dm-handle" aria-hidden="true">⋮⋮</td>
                  <td className={`dm-depth-${Math.min(depth, 4)}`}>
                    <span className="dm-name">{isGroup(f) ? `${label} (group)` : label}</span> <span className="mono muted dm-key">{f.field}</span>
                    {f.meta?.note && <div className="field-note">{f.meta.note}</div>}
                  </td>
                  <td>{isGroup(f) ? 'Group' : typeLabel(f.type)}{f.type === 'string' && f.schema?.max_length ? ` (${f.schema.max_length})` : ''}</td>
                  <td className="mono">{f.meta?.interface ?? '—'}</td>
                  <td className="dm-flags">{flags.map((x) => <span key={x} className="badge">{x}</span>)}</td>
                  <td className="row-actions">
                    <button type="button" id={`field-${f.field}-up`} className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${label} up`} disabled={at <= 0 || busy}
                      onClick={() => void reorder(f.field, siblings[at - 1].field, `field-${f.field}-up`)}>↑</button>
                    <button type="button" id={`field-${f.field}-down`} className="btn btn-small btn-ghost icon-btn" aria-label={`Move ${label} down`} disabled={at >= siblings.length - 1 || busy}
                      onClick={() => void reorder(f.field, siblings[at + 1].field, `field-${f.field}-down`)}>↓</button>
                    <button type="button" className="btn btn-small" aria-label={`Edit ${label}`} onClick={() => { setNotice(null); setEditing(f); }}>Edit</button>
                    {!f.schema?.is_primary_key && <button type="button" className="btn btn-small btn-danger" aria-label={`Delete ${label}`} onClick={() => setDeleting(f)}>Delete</button>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {editing && (
        <FieldDialog collection={collection} field={editing === 'new' || editing === 'group' ? null : editing} group={editing === 'group'}
          fields={fields} allFields={all} relations={relations} collections={collections}
          onClose={() => setEditing(null)} onSaved={(name, created) => { setEditing(null); setNotice(created ? `Field “${titleOf(name)}” added.` : `Field “${titleOf(name)}” saved.`); }} />
      )}
      {wizard && (
        <RelationWizard kind={wizard} collection={collection} allFields={all} collections={collections} onClose={() => setWizard(null)}
          onDone={(message) => { setWizard(null); setNotice(message); }} />
      )}
      {deleting && (
        <ConfirmDialog title={`Delete the field “${titleOf(deleting.field)}”?`} confirmLabel="Delete field" typeToConfirm={deleting.field} onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await request('DELETE', `/fields/${encodeURIComponent(collection)}/${encodeURIComponent(deleting.field)}`);
            await refreshSchema(client);
            setNotice(`Field “${titleOf(deleting.field)}” deleted.`);
            setDeleting(null);
          }}>
          <p>{deleting.type === 'alias' ? 'The field goes from the form; it holds no data of its own.' : <>The column <span className="mono">{deleting.field}</span> and its value in <strong>every item</strong> are deleted. This cannot be undone.</>}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
