/** A collection's fields in form order, groups holding their fields: drag (or the arrow keys on a row's handle) to
 * reorder and to move into and out of groups, saved as one batch of sort and group changes. From here: create a
 * field or a group, start a relation wizard, edit a field, delete one (typing its name). */
import { useState, type CSSProperties, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { fieldsOf, relationFor } from '../../content/schema.ts';
import { isGroup } from '../../content/item/model.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api, useRefreshSchema } from '../api.ts';
import { interfaceLabel, typeLabel } from '../catalog.ts';
import { isSystem, type FullField } from '../model.ts';
import { ReorderTree, type Move, type ReorderNode } from '../ReorderTree.tsx';
import { useSaveQueue } from '../save-queue.ts';
import { RelationWizard, type RelationKind } from '../relations/RelationWizard.tsx';
import { relationSummary } from './relation-summary.ts';

interface FieldNode extends ReorderNode { field: FullField }

/** The form's tree: top-level fields and groups, each group with its fields, in meta.sort order. */
export function fieldTree(fields: FullField[], locked: (f: FullField) => boolean = () => false): FieldNode[] {
  const groups = new Set(fields.filter(isGroup).map((f) => f.field));
  const build = (parent: string | null, seen: Set<string>): FieldNode[] => fields
    .filter((f) => (parent === null ? !f.meta?.group || !groups.has(f.meta.group) || f.meta.group === f.field : f.meta?.group === parent && f.field !== parent))
    .filter((f) => !seen.has(f.field))
    .map((f) => ({
      id: f.field, label: f.field, field: f, container: isGroup(f),
      movable: !locked(f), children: isGroup(f) ? build(f.field, new Set([...seen, f.field])) : [],
    }));
  return build(null, new Set());
}

const WIZARDS: { kind: RelationKind; label: string }[] = [
  { kind: 'm2o', label: 'Many-to-one' }, { kind: 'o2m', label: 'One-to-many' }, { kind: 'm2m', label: 'Many-to-many' }, { kind: 'm2a', label: 'Many-to-any' },
];

export function FieldList({ data, collection }: { data: SchemaData; collection: string }) {
  const queryClient = useQueryClient();
  const saves = useSaveQueue(['fields']);
  const [deleting, setDeleting] = useState<FullField | null>(null);
  const [wizard, setWizard] = useState<RelationKind | null>(null);
  const fields = fieldsOf(data.fields, collection) as FullField[];
  const system = isSystem(collection);
  // A system collection's built-in fields (no meta row) are the service's: shown, not moved or changed.
  const builtIn = (f: FullField): boolean => system && f.meta === null;
  const tree = fieldTree(fields, builtIn);
    const hasKey = fields.some((f) => f.schema?.is_primary_key);

  // The moved field's new siblings numbered 1..n, shown at once; the server's answer replaces it.
  const onMove = (_id: string, move: Move): void => {
    const moves = move.order.map((field, i) => ({ field, meta: { sort: i + 1, group: move.parent } }));
    const byField = new Map(moves.map((m) => [m.field, m.meta]));
    saves.enqueue(() => queryClient.setQueryData<FullField[]>(['fields'], (old) => old?.map((f) => {
      const meta = f.collection === collection ? byField.get(f.field) : undefined;
      return meta ? { ...f, meta: { ...f.meta, ...meta } } : f;
    })), () => api.updateFields(collection, moves));
  };

  return (
    <section className="dm-section" aria-labelledby="dm-fields-h">
      <div className="dm-section-head">
        <h2 id="dm-fields-h">Fields</h2>
        <span className="spacer" />
        <Link href={`/${encodeURIComponent(collection)}/+?kind=group`} className="btn">Create group</Link>
        <Link href={`/${encodeURIComponent(collection)}/+`} className="btn btn-primary">Create field</Link>
      </div>
      <div className="dm-wizards" role="group" aria-label="Create a relation">
        <span className="muted">Create a relation:</span>
        {WIZARDS.map((w) => (
          <button key={w.kind} type="button" className="btn btn-small" disabled={!hasKey} onClick={() => setWizard(w.kind)}>{w.label}</button>
        ))}
      </div>
      {saves.error !== null && <ErrorNotice error={saves.error} title="The new order was not saved." />}
      {tree.length === 0 ? <p className="muted">No fields yet.</p> : (
        <ReorderTree nodes={tree} label={`Fields of ${collection}`} onMove={onMove}
          renderRow={(node, handle, depth) => <FieldRow data={data} field={node.field} handle={handle} depth={depth} builtIn={builtIn(node.field)} onDelete={setDeleting} />} />
      )}
      {deleting && <DeleteFieldDialog data={data} field={deleting} onClose={() => setDeleting(null)} />}
      {wizard && <RelationWizard kind={wizard} data={data} collection={collection} onClose={() => setWizard(null)} />}
    </section>
  );
}

function FieldRow({ data, field: f, handle, depth, builtIn, onDelete }: { data: SchemaData; field: FullField; handle: ReactNode; depth: number; builtIn: boolean; onDelete(f: FullField): void }) {
  const group = isGroup(f);
  const rel = relationSummary(data, f);
  const flags: string[] = [];
  if (f.schema?.is_primary_key) flags.push('Primary key');
  if (f.meta?.required) flags.push('Required');
  if (f.schema?.is_unique && !f.schema.is_primary_key) flags.push('Unique');
  else if (f.schema?.is_indexed && !f.schema.is_primary_key) flags.push('Indexed');
  if (f.meta?.readonly) flags.push('Read-only');
  if (f.meta?.hidden) flags.push('Hidden');
  if (f.meta?.conditions?.length) flags.push('Conditions');
  if (f.meta?.validation) flags.push('Validation');
  const href = `/${encodeURIComponent(f.collection)}/${encodeURIComponent(f.field)}`;
  return (
    <div className={group ? 'dm-row dm-field-row dm-group-row' : 'dm-row dm-field-row'} style={{ '--depth': depth } as CSSProperties}>
      {handle}
      {builtIn ? <span className="dm-row-name mono">{f.field}</span> : <Link href={href} className="dm-row-name mono" aria-label={`Edit field ${f.field}`}>{f.field}</Link>}
      <span className="dm-row-type">{group ? 'Group' : rel ? rel.kind : typeLabel(f.type)}</span>
      <span className="dm-row-interface muted">{rel ? rel.text : group ? interfaceLabel(f.meta?.interface) : interfaceLabel(f.meta?.interface)}</span>
      <span className="dm-badges">{flags.map((x) => <span key={x} className="badge">{x}</span>)}{builtIn && <span className="badge">Built-in</span>}</span>
      <span className="dm-row-actions">
        {!builtIn && !f.schema?.is_primary_key && (
          <button type="button" className="btn btn-ghost icon-btn btn-small" aria-label={`Delete field ${f.field}`} title="Delete" onClick={() => onDelete(f)}>✕</button>
        )}
      </span>
    </div>
  );
}

function DeleteFieldDialog({ data, field: f, onClose }: { data: SchemaData; field: FullField; onClose(): void }) {
  const refresh = useRefreshSchema();
  const rel = relationFor(data.relations, f.collection, f.field);
  const group = isGroup(f);
  const children = data.fields.filter((x) => x.collection === f.collection && x.meta?.group === f.field).map((x) => x.field);
  let consequence: ReactNode;
  if (group) consequence = <p>The group goes from the form. {children.length > 0 ? <>Its fields ({children.join(', ')}) stay and move to the top level.</> : 'It holds no fields.'}</p>;
  else if (f.type === 'alias' && rel) consequence = <p>The list goes from the form and the relation ends{rel.kind === 'o2m' ? `; the items of ${rel.relation.collection} and their ${rel.relation.field} values stay` : ''}. {rel.kind === 'm2m' || rel.kind === 'm2a' ? `The junction collection ${rel.relation.collection} stays with its rows; delete it too if it is no longer needed.` : ''}</p>;
  else consequence = <p>The column <strong className="mono">{f.field}</strong> is dropped with <strong>its value in every item</strong>{rel ? ', and its relation ends' : ''}. This can’t be undone.</p>;
  const otherSide = rel?.kind === 'm2o' && rel.relation.meta?.one_field ? `${rel.relation.related_collection}.${rel.relation.meta.one_field}` : null;
  return (
    <ConfirmDialog title={`Delete the field ${f.field}?`} confirmLabel="Delete field" typeToConfirm={f.field}
      onConfirm={async () => {
        await api.deleteField(f.collection, f.field);
        await refresh();
        onClose();
      }}
      onClose={onClose}>
      {consequence}
      {otherSide && <p>The one-to-many field <span className="mono dm-inline-code">{otherSide}</span> on the other side goes with it.</p>}
    </ConfirmDialog>
  );
}
