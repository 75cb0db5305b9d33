/** A collection's settings (svc_collections): how it shows (icon, color, note, display template, hidden, folder,
 * collapse), how items behave (singleton, sort field, archive field and values, accountability, preview URL,
 * versioning) and the search index. Saved with one PATCH of the keys that changed; what is typed stays on an error. */
import { useId, useState } from 'react';
import { fieldsOf, relationFor } from '../../content/schema.ts';
import { CollectionIcon, ICON_NAMES } from '../../content/nav/CollectionIcon.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import type { SchemaData } from '../DataModelModule.tsx';
import { api, useRefreshSchema } from '../api.ts';
import type { FullCollection, FullCollectionMeta, FullField } from '../model.ts';
import { buildTree, flatten, isWithin } from './tree.ts';

interface Values {
  icon: string;
  color: string;
  note: string;
  display_template: string;
  hidden: boolean;
  singleton: boolean;
  group: string;
  collapse: 'open' | 'closed' | 'locked';
  sort_field: string;
  archive_field: string;
  archive_value: string;
  unarchive_value: string;
  archive_app_filter: boolean;
  accountability: 'all' | 'activity' | 'none';
  preview_url: string;
  versioning: boolean;
  search_index: boolean;
}

function valuesOf(meta: FullCollectionMeta | null): Values {
  return {
    icon: meta?.icon ?? '', color: meta?.color ?? '', note: meta?.note ?? '', display_template: meta?.display_template ?? '',
    hidden: Boolean(meta?.hidden), singleton: Boolean(meta?.singleton), group: meta?.group ?? '', collapse: meta?.collapse ?? 'open',
    sort_field: meta?.sort_field ?? '', archive_field: meta?.archive_field ?? '', archive_value: meta?.archive_value ?? '',
    unarchive_value: meta?.unarchive_value ?? '', archive_app_filter: meta?.archive_app_filter ?? true,
    accountability: meta?.accountability === undefined ? 'all' : meta.accountability ?? 'none',
    preview_url: meta?.preview_url ?? '', versioning: Boolean(meta?.versioning), search_index: Boolean(meta?.search_index),
  };
}

/** The meta keys to send: those that differ from what is stored, empty text as null. */
function changes(before: Values, after: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof Values)[]) {
    if (after[key] === before[key]) continue;
    const v = after[key];
    if (key === 'accountability') out[key] = v === 'none' ? null : v;
    else out[key] = typeof v === 'string' && v === '' ? null : v;
  }
  return out;
}

const TEXT_TYPES = new Set(['string', 'text', 'csv']);

/** The paths a display template can use: the collection's own stored fields, and one hop through each many-to-one. */
export function templatePaths(data: SchemaData, collection: string): { path: string; label: string }[] {
  const own = fieldsOf(data.fields, collection) as FullField[];
  const out: { path: string; label: string }[] = [];
  for (const f of own) {
    if (f.type === 'alias') continue;
    out.push({ path: f.field, label: f.field });
    const rel = relationFor(data.relations, collection, f.field);
    if (rel && (rel.kind === 'm2o' || rel.kind === 'file') && rel.relation.related_collection) {
      for (const sub of fieldsOf(data.fields, rel.relation.related_collection)) {
        if (sub.type !== 'alias' && sub.type !== 'hash') out.push({ path: `${f.field}.${sub.field}`, label: `${f.field} → ${sub.field}` });
      }
    }
  }
  return out;
}

export function SettingsForm({ data, collection: c }: { data: SchemaData; collection: FullCollection }) {
  const refresh = useRefreshSchema();
  const id = useId();
  const folder = c.schema === null;
  const [stored, setStored] = useState(() => valuesOf(c.meta));
  const [v, setV] = useState(stored);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const set = <K extends keyof Values>(key: K, value: Values[K]): void => {
    setV((old) => ({ ...old, [key]: value }));
    setSaved(false);
  };
  const pending = changes(stored, v);
  const dirty = Object.keys(pending).length > 0;

  const fields = (fieldsOf(data.fields, c.collection) as FullField[]).filter((f) => f.type !== 'alias');
  const hasText = fields.some((f) => TEXT_TYPES.has(f.type) && f.type !== 'hash');
  const tree = buildTree(data.collections);
  const groups = flatten(tree).filter((x) => !isWithin(tree, x.node.name, c.collection));
  const holdsOthers = data.collections.some((x) => x.meta?.group === c.collection);
  const paths = folder ? [] : templatePaths(data, c.collection);

  const save = async (): Promise<void> => {
    if (!dirty || busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.updateCollection(c.collection, pending);
      await refresh();
      setStored(v);
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const text = (key: 'note' | 'archive_value' | 'unarchive_value' | 'preview_url', label: string, note?: string, placeholder?: string) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input id={`${id}-${key}`} value={v[key]} placeholder={placeholder} onChange={(e) => set(key, e.target.value)}
        aria-describedby={note ? `${id}-${key}-note` : undefined} />
      {note && <span className="field-note" id={`${id}-${key}-note`}>{note}</span>}
    </div>
  );
  const check = (key: 'hidden' | 'singleton' | 'archive_app_filter' | 'versioning' | 'search_index', label: string, note: string, disabled = false) => (
    <label className="dm-check">
      <input type="checkbox" checked={v[key]} disabled={disabled} onChange={(e) => set(key, e.target.checked)} aria-describedby={`${id}-${key}-note`} />
      <span>{label}<span className="field-note dm-block" id={`${id}-${key}-note`}>{note}</span></span>
    </label>
  );

  return (
    <section className="dm-section" aria-labelledby={`${id}-h`}>
      <form onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate>
        <div className="dm-section-head">
          <h2 id={`${id}-h`}>Settings</h2>
        </div>

        <h3 className="dm-subhead">Appearance</h3>
        <div className="form-grid">
          <div className="field">
            <label htmlFor={`${id}-icon`}>Icon</label>
            <span className="dm-icon-input">
              <CollectionIcon icon={v.icon || null} color={v.color || null} folder={folder} name={c.collection} />
              <input id={`${id}-icon`} list={`${id}-icons`} value={v.icon} placeholder="article, person, image…" onChange={(e) => set('icon', e.target.value.trim())}
                aria-describedby={`${id}-icon-note`} />
            </span>
            <datalist id={`${id}-icons`}>{ICON_NAMES.map((n) => <option key={n} value={n} />)}</datalist>
            <span className="field-note" id={`${id}-icon-note`}>A Material Symbols name, as in Directus.</span>
          </div>
          <div className="field">
            <label htmlFor={`${id}-color`}>Color</label>
            <span className="dm-color-input">
              <input id={`${id}-color`} type="color" className={v.color ? undefined : 'unset'} value={v.color || '#6644ff'} onChange={(e) => set('color', e.target.value)} />
              <span className="mono">{v.color || 'None'}</span>
              {v.color && <button type="button" className="btn btn-small" onClick={() => set('color', '')}>No color</button>}
            </span>
          </div>
          {text('note', 'Note', 'Shown beside the collection’s name in the navigation.')}
          {!folder && (
            <div className="field">
              <label htmlFor={`${id}-template`}>Display template</label>
              <span className="input-with-button">
                <input id={`${id}-template`} value={v.display_template} className="mono" placeholder="{{title}}" spellCheck={false}
                  onChange={(e) => set('display_template', e.target.value)} aria-describedby={`${id}-template-note`} />
                <select aria-label="Insert a field into the display template" value="" className="dm-insert"
                  onChange={(e) => { if (e.target.value) set('display_template', `${v.display_template}{{${e.target.value}}}`); }}>
                  <option value="">Insert field…</option>
                  {paths.map((p) => <option key={p.path} value={p.path}>{p.label}</option>)}
                </select>
              </span>
              <span className="field-note" id={`${id}-template-note`}>How an item is named in pickers and related lists, e.g. {'{{title}} by {{author.name}}'}.</span>
            </div>
          )}
        </div>

        <h3 className="dm-subhead">Navigation</h3>
        <div className="form-grid">
          <div className="field">
            <label htmlFor={`${id}-group`}>Folder</label>
            <select id={`${id}-group`} value={v.group} onChange={(e) => set('group', e.target.value)}>
              <option value="">None (top level)</option>
              {groups.map((g) => <option key={g.node.name} value={g.node.name}>{`${'\u2003'.repeat(g.depth)}${g.node.name}`}</option>)}
            </select>
          </div>
          {(folder || holdsOthers) && (
            <div className="field">
              <label htmlFor={`${id}-collapse`}>In the navigation</label>
              <select id={`${id}-collapse`} value={v.collapse} onChange={(e) => set('collapse', e.target.value as Values['collapse'])}>
                <option value="open">Open, can be closed</option>
                <option value="closed">Closed, can be opened</option>
                <option value="locked">Always open</option>
              </select>
            </div>
          )}
          <div className="full dm-checks">
            {check('hidden', 'Hidden', 'Left out of the content navigation (still reachable through the API and relations).')}
            {!folder && check('singleton', 'Singleton', 'One item only: the content module opens it directly.')}
          </div>
        </div>

        {!folder && (
          <>
            <h3 className="dm-subhead">Items</h3>
            <div className="form-grid">
              <div className="field">
                <label htmlFor={`${id}-sort`}>Sort field</label>
                <select id={`${id}-sort`} value={v.sort_field} onChange={(e) => set('sort_field', e.target.value)} aria-describedby={`${id}-sort-note`}>
                  <option value="">None</option>
                  {fields.filter((f) => ['integer', 'bigInteger', 'float', 'decimal'].includes(f.type) && !f.schema?.is_primary_key).map((f) => <option key={f.field} value={f.field}>{f.field}</option>)}
                </select>
                <span className="field-note" id={`${id}-sort-note`}>A number field that holds the manual order of items.</span>
              </div>
              <div className="field">
                <label htmlFor={`${id}-accountability`}>Accountability</label>
                <select id={`${id}-accountability`} value={v.accountability} onChange={(e) => set('accountability', e.target.value as Values['accountability'])} aria-describedby={`${id}-acc-note`}>
                  <option value="all">Activity and revisions</option>
                  <option value="activity">Activity only</option>
                  <option value="none">Nothing</option>
                </select>
                <span className="field-note" id={`${id}-acc-note`}>What is recorded of each change: who did what, and the item’s data after it.</span>
              </div>
              <div className="field">
                <label htmlFor={`${id}-archive`}>Archive field</label>
                <select id={`${id}-archive`} value={v.archive_field} onChange={(e) => set('archive_field', e.target.value)} aria-describedby={`${id}-archive-note`}>
                  <option value="">None</option>
                  {fields.filter((f) => !f.schema?.is_primary_key).map((f) => <option key={f.field} value={f.field}>{f.field}</option>)}
                </select>
                <span className="field-note" id={`${id}-archive-note`}>The field whose value marks an item as archived (a status, say).</span>
              </div>
              <div className="dm-checks dm-align-end">
                {check('archive_app_filter', 'Hide archived items', 'Lists leave archived items out unless asked for them.', !v.archive_field)}
              </div>
              {v.archive_field && text('archive_value', 'Archive value', 'The value that archives an item.', 'archived')}
              {v.archive_field && text('unarchive_value', 'Unarchive value', 'The value an item gets back when unarchived.', 'draft')}
              <div className="full">{text('preview_url', 'Preview URL', 'Where the item can be previewed on your site; fields in double braces are filled in.', 'https://example.com/posts/{{slug}}?preview=true')}</div>
              <div className="full dm-checks">
                {check('versioning', 'Content versions', 'Editors can keep drafts of an item beside the published one, and submit them for review.')}
                {check('search_index', 'Search index', hasText
                  ? 'A trigram index over the text fields makes searching a large collection fast; it takes disk space and time to build.'
                  : 'A trigram index over the text fields; this collection has no text field yet.')}
              </div>
            </div>
          </>
        )}
        <div className="dm-save-bar">
          {error !== null && <ErrorNotice error={error} title="The settings were not saved." />}
          {saved && !dirty && <span className="dm-saved" role="status">Saved</span>}
          {dirty && <span className="muted">Unsaved changes</span>}
          <span className="spacer" />
          {dirty && <button type="button" className="btn" onClick={() => setV(stored)}>Discard changes</button>}
          <button type="submit" className="btn btn-primary" disabled={!dirty || busy}>{busy ? 'Saving…' : 'Save settings'}</button>
        </div>
      </form>
    </section>
  );
}
