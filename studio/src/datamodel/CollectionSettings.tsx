/** A collection's settings (PATCH /collections/{collection} with its meta): how it looks (icon, color, note, display
 * template), where it sits (folder, order, collapse), what kind it is (single item, hidden), its sort and archive
 * fields, accountability, the preview URL, drafts (versioning) and the search index. A folder has only the first
 * two groups. */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { titleOf, type Collection, type CollectionMeta, type Field } from '../content/schema.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { CheckField, SelectField, splitError, TextField, type FieldErrors } from '../ui/form.tsx';
import { refreshSchema } from './data.ts';

type Meta = CollectionMeta & { accountability?: 'all' | 'activity' | null; preview_url?: string | null; versioning?: boolean; search_index?: boolean; archive_app_filter?: boolean };

const KEYS = ['icon', 'color', 'note', 'display_template', 'hidden', 'singleton', 'group', 'collapse', 'sort_field', 'archive_field', 'archive_value',
  'unarchive_value', 'archive_app_filter', 'accountability', 'preview_url', 'versioning', 'search_index'] as const;

export function CollectionSettings({ collection, fields, collections }: { collection: Collection; fields: Field[]; collections: Collection[] }) {
  const client = useQueryClient();
  const stored = (collection.meta ?? {}) as Meta;
  const [meta, setMeta] = useState<Meta>(stored);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const folder = collection.schema === null;
  const set = <K extends keyof Meta>(k: K, v: Meta[K]): void => { setMeta((m) => ({ ...m, [k]: v })); setSaved(false); setErrors(({ [k as string]: _x, ...rest }) => rest); };
  const text = (k: keyof Meta): string => (meta[k] === null || meta[k] === undefined ? '' : String(meta[k]));
  const changed = KEYS.filter((k) => JSON.stringify(meta[k] ?? null) !== JSON.stringify(stored[k] ?? null));
  const stock = fields.filter((f) => f.type !== 'alias');
  const groups = collections.filter((c) => c.collection !== collection.collection && !c.collection.startsWith('svc_') && c.meta?.group !== collection.collection);

  async function save(): Promise<void> {
    const local: FieldErrors = {};
    if (meta.color && !/^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(meta.color)) local.color = 'A hex color such as #2F80ED.';
    if (meta.preview_url && !/^https?:\/\/\S+$/.test(meta.preview_url)) local.preview_url = 'A web address starting with https:// (or http:// while developing).';
    if (meta.archive_field && (meta.archive_value ?? '') === '') local.archive_value = 'Say which value marks an item as archived.';
    setErrors(local);
    if (Object.keys(local).length > 0 || busy || changed.length === 0) return;
    setBusy(true);
    setError(null);
    try {
      await request('PATCH', `/collections/${encodeURIComponent(collection.collection)}`, { body: { meta: Object.fromEntries(changed.map((k) => [k, meta[k] === '' ? null : meta[k] ?? null])) } });
      await refreshSchema(client);
      setSaved(true);
    } catch (err) {
      const split = splitError(err, [...KEYS]);
      setErrors(split.fields);
      setError(split.rest);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="dm-settings" noValidate onSubmit={(e) => { e.preventDefault(); void save(); }} aria-label={`Settings of ${titleOf(collection.collection)}`}>
      <fieldset className="dm-card">
        <legend>Look</legend>
        <div className="form-grid">
          <TextField label="Icon" value={text('icon')} onChange={(v) => set('icon', v || null)} note="A Material icon name (article, person) or one character." maxLength={30} />
          <TextField label="Color" value={text('color')} onChange={(v) => set('color', v || null)} error={errors.color} placeholder="#2F80ED" />
          <TextField label="Note" className="full" value={text('note')} onChange={(v) => set('note', v || null)} note="Shown to editors under the collection's name." />
          {!folder && (
            <TextField label="Display template" className="full" value={text('display_template')} onChange={(v) => set('display_template', v || null)}
              placeholder={stock[1] ? `{{${stock[1].field}}}` : '{{title}}'}
              note={<>How an item reads in lists and pickers, with fields in braces. Fields: {stock.map((f) => <code key={f.field} className="dm-chip">{`{{${f.field}}}`}</code>)}</>} />
          )}
        </div>
      </fieldset>
      <fieldset className="dm-card">
        <legend>Place</legend>
        <div className="form-grid">
          <SelectField label="In folder" value={text('group')} onChange={(v) => set('group', v || null)}>
            <option value="">None (top level)</option>
            {groups.map((g) => <option key={g.collection} value={g.collection}>{titleOf(g.collection)}</option>)}
          </SelectField>
          <SelectField label="Its own items in the navigation" value={text('collapse') || 'open'} onChange={(v) => set('collapse', v as Meta['collapse'])}
            note="For a collection or folder that holds others.">
            <option value="open">Start open</option>
            <option value="closed">Start closed</option>
            <option value="locked">Always open</option>
          </SelectField>
          <CheckField label="Hidden from the navigation" checked={Boolean(meta.hidden)} onChange={(v) => set('hidden', v)} note="For helper collections such as junctions." />
        </div>
      </fieldset>
      {!folder && (
        <>
          <fieldset className="dm-card">
            <legend>Items</legend>
            <div className="form-grid">
              <CheckField label="A single item" checked={Boolean(meta.singleton)} onChange={(v) => set('singleton', v)} note="The collection holds exactly one item, opened directly." />
              <SelectField label="Sort field" value={text('sort_field')} onChange={(v) => set('sort_field', v || null)} note="Lets editors order items by hand; lists follow it by default.">
                <option value="">None</option>
                {stock.filter((f) => ['integer', 'bigInteger', 'float', 'decimal'].includes(f.type) && !f.schema?.is_primary_key).map((f) => <option key={f.field} value={f.field}>{titleOf(f.field)}</option>)}
              </SelectField>
              <SelectField label="Archive field" value={text('archive_field')} onChange={(v) => set('archive_field', v || null)} note="Archived items are hidden from lists unless asked for.">
                <option value="">None</option>
                {stock.filter((f) => !f.schema?.is_primary_key).map((f) => <option key={f.field} value={f.field}>{titleOf(f.field)}</option>)}
              </SelectField>
              {meta.archive_field && (
                <>
                  <TextField label="Archived value" value={text('archive_value')} onChange={(v) => set('archive_value', v)} error={errors.archive_value} placeholder="archived" />
                  <TextField label="Unarchived value" value={text('unarchive_value')} onChange={(v) => set('unarchive_value', v || null)} placeholder="draft" />
                  <CheckField label="Hide archived items in the Studio's lists" checked={meta.archive_app_filter !== false} onChange={(v) => set('archive_app_filter', v)} />
                </>
              )}
            </div>
          </fieldset>
          <fieldset className="dm-card">
            <legend>Editorial</legend>
            <div className="form-grid">
              <CheckField label="Drafts (content versioning)" checked={Boolean(meta.versioning)} onChange={(v) => set('versioning', v)}
                note="Editors can prepare drafts of an item and submit them for review before they reach it." />
              <TextField label="Preview URL" value={text('preview_url')} onChange={(v) => set('preview_url', v || null)} error={errors.preview_url}
                placeholder="https://www.example.com/articles/{{slug}}" note="The website's page of an item, with fields in braces; the editor shows it beside the form." />
              <SelectField label="Activity and revisions" value={meta.accountability === undefined ? 'all' : meta.accountability ?? ''} onChange={(v) => set('accountability', (v || null) as Meta['accountability'])}>
                <option value="all">Record who did what, and every revision</option>
                <option value="activity">Record who did what, without revisions</option>
                <option value="">Record nothing</option>
              </SelectField>
              <CheckField label="Search index" checked={Boolean(meta.search_index)} onChange={(v) => set('search_index', v)}
                note="Makes search fast on large collections (a trigram index of the text fields); it takes a while to build on a big table." />
            </div>
          </fieldset>
        </>
      )}
      {error !== null && <ErrorNotice error={error} title="Not saved:" />}
      <div className="dm-save">
        <span role="status">{changed.length > 0 ? <span className="badge item-dirty">Unsaved changes</span> : saved ? <span className="notice-inline">Saved.</span> : null}</span>
        {changed.length > 0 && <button type="button" className="btn" onClick={() => { setMeta(stored); setErrors({}); setError(null); }} disabled={busy}>Discard</button>}
        <button type="submit" className="btn btn-primary" disabled={busy || changed.length === 0}>{busy ? 'Saving…' : 'Save settings'}</button>
      </div>
    </form>
  );
}
