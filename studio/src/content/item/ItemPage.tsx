/** /content/:collection/:id — one item's editor: the form generated from the fields' meta, the header actions the
 * caller may use, and (for an existing item) the sidebar with revisions and comments. id '+' is a new item; id null
 * is the collection's singleton. The schema, relations and permissions are read in parallel (cached for the
 * session); the item is read with one level of each relation expanded for display.
 *
 * ?version=<id> opens a draft of the item (./versions/): the same form over the item with the draft's changes, whose
 * save sends the changed fields to the draft, never to the item. With the collection's preview_url, the website's
 * page of the item shows beside the form (live preview), reloaded after each save. */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { ApiError, messageOf } from '../../api/errors.ts';
import { useCapabilities } from '../../app/capabilities.ts';
import { useSession } from '../../app/session.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import {
  can, fieldAllowed, fieldsOf, primaryKeyOf, titleOf, useAllFields, useCollections, usePermissions, usePolicyGlobals, useRelations,
  type Collection, type Field, type Permissions, type Relation,
} from '../schema.ts';
import { fieldState, matches } from './conditions.ts';
import { displayOf } from './display.ts';
import { FieldInput } from './FieldInput.tsx';
import { FormField, fieldDomId } from './FormField.tsx';
import { infoOf, isEmpty, readFields, type FieldInfo } from './model.ts';
import { RelationalInput } from './relational/RelationalInput.tsx';
import { copyPayload, savePayload } from './payload.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { useUnsavedGuard } from './unsaved.tsx';
import { commentsQuery } from './sidebar/Comments.tsx';
import { Sidebar } from './sidebar/Sidebar.tsx';
import { ScheduleControl } from './versions/ScheduleControl.tsx';
import { isVersionId, versionErrorText, versionRights, versionTitle } from './versions/api.ts';
import { createNewContentDraft, createVersion, newContentKind } from './versions/create-draft.ts';
import { draftPayload } from './versions/draft-values.ts';
import { setFlash, takeFlash } from './versions/flash.ts';
import { NewDraftDialog, type NewDraftKind } from './versions/NewDraftDialog.tsx';
import { PreviewPane } from './versions/PreviewPane.tsx';
import { previewAddress } from './versions/preview-url.ts';
import { useDraft } from './versions/use-draft.ts';
import { VersionBar } from './versions/VersionBar.tsx';
import { itemHref, VersionMenu } from './versions/VersionMenu.tsx';
import './item.css';
import './versions/versions.css';

export default function ItemPage(props: { collection: string; id: string | null }) {
  const versionId = new URLSearchParams(useSearch()).get('version');
  const fields = useAllFields();
  const relations = useRelations();
  const perms = usePermissions();
  const globals = usePolicyGlobals();
  const collections = useCollections();
  const queries = [fields, relations, perms, globals, collections];
  const failed = queries.find((q) => q.error);
  if (failed) return <div className="main-pane"><div className="page-body"><ErrorNotice error={failed.error} onRetry={() => queries.forEach((q) => void q.refetch())} /></div></div>;
  if (!fields.data || !relations.data || !perms.data || !globals.data || !collections.data) return <Loading label="Loading the editor" />;
  return (
    <ItemEditor key={`${props.collection}/${props.id}/${versionId ?? ''}`} collection={props.collection} id={props.id} versionId={versionId} allFields={fields.data} relations={relations.data}
      perms={perms.data} admin={globals.data.admin_access} collections={collections.data} />
  );
}

export interface EditorContext {
  collection: string;
  allFields: Field[];
  relations: Relation[];
  perms: Permissions;
  admin: boolean;
  collections: Collection[];
}

type Item = Record<string, unknown>;

function itemPath(collection: string, id: string | null): string {
  return id === null ? `/items/${encodeURIComponent(collection)}` : `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`;
}

function ItemEditor({ collection, id, versionId, allFields, relations, perms, admin, collections }: EditorContext & { id: string | null; versionId: string | null }) {
  const isNew = id === '+';
  const singleton = id === null;
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const caps = useCapabilities();
  const { me } = useSession();
  const ctx: EditorContext = useMemo(() => ({ collection, allFields, relations, perms, admin, collections }), [collection, allFields, relations, perms, admin, collections]);
  const meta = collections.find((c) => c.collection === collection)?.meta ?? null;
  // Drafts are for the items of a collection with versioning on (and the drafts someone opens by a link).
  const draftMode = versionId !== null && !isNew && !singleton;
  const versioning = Boolean(meta?.versioning) && !singleton;

  const fields = useMemo(() => fieldsOf(allFields, collection), [allFields, collection]);
  const infos = useMemo(() => fields.map((f) => infoOf(f, relations)), [fields, relations]);
  const pk = primaryKeyOf(fields);
  const known = fields.length > 0;

  const readAction = isNew ? 'create' : 'read';
  const readable = useCallback((f: string) => fieldAllowed(perms, admin, collection, readAction, f), [perms, admin, collection, readAction]);
  const itemFields = useMemo(() => readFields(infos.filter((i) => readable(i.field.field))), [infos, readable]);

  const queryKey = ['item', collection, id ?? '(singleton)'];
  const item = useQuery({
    queryKey,
    enabled: !isNew && known,
    queryFn: ({ signal }) => request<Item | null>('GET', itemPath(collection, id), { query: { fields: itemFields }, signal }),
  });
  const draft = useDraft({
    collection, id: id ?? '', versionId: draftMode && isVersionId(versionId) ? versionId : null, infos, ctx, readFields: itemFields, mainQuery: item,
  });
  const rights = draft?.version ? versionRights(draft.version, caps, me?.id) : null;

  // A new item (and a draft of new content) is written with create permission; an existing one with update.
  const writeAction = isNew || draft?.newContent ? 'create' : 'update';
  const mayWrite = can(perms, admin, collection, writeAction) && (!draftMode || Boolean(rights?.edit));
  const mayCreate = can(perms, admin, collection, 'create');
  const mayDelete = !isNew && !singleton && !draftMode && can(perms, admin, collection, 'delete');
  const writable = useCallback((f: string) => mayWrite && fieldAllowed(perms, admin, collection, writeAction, f), [perms, admin, collection, writeAction, mayWrite]);
  const mayDraft = versioning && !draftMode && caps.has('versioning:create') && (isNew ? mayCreate : can(perms, admin, collection, 'update'));

  // The sidebar's comments (its first tab) load beside the item, not after it: the sidebar is drawn once the item is in.
  useQuery({
    ...commentsQuery(collection, id ?? ''),
    enabled: !isNew && !singleton && !draftMode && known && can(perms, admin, 'svc_comments', 'read') && sessionStorage.getItem('studio.item-sidebar') !== 'closed',
  });

  const [edits, setEdits] = useState<Item>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [generalError, setGeneralError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(() => takeFlash());
  const [busy, setBusy] = useState<null | 'save' | 'stay' | 'copy' | 'delete'>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [newDraft, setNewDraft] = useState<NewDraftKind | null>(null);
  const [previewOpen, setPreviewOpen] = useState(() => sessionStorage.getItem('studio.item-preview') === 'open');
  const [previewReload, setPreviewReload] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  const defaults = useMemo(() => {
    const out: Item = {};
    if (isNew) for (const f of fields) if (f.schema?.default_value !== undefined && f.schema?.default_value !== null && !f.schema.is_primary_key) out[f.field] = f.schema.default_value;
    return out;
  }, [fields, isNew]);
  const base: Item = useMemo(() => (draftMode ? draft?.base ?? {} : isNew ? defaults : (item.data ?? {})), [draftMode, draft?.base, isNew, defaults, item.data]);
  const values = useMemo(() => ({ ...base, ...edits }), [base, edits]);
  const dirty = Object.keys(edits).length > 0;
  const guard = useUnsavedGuard(dirty);

  const setValue = useCallback((field: string, value: unknown) => {
    setEdits((e) => ({ ...e, [field]: value }));
    setFieldErrors((errs) => {
      if (!(field in errs)) return errs;
      const { [field]: _gone, ...rest } = errs;
      return rest;
    });
    setSaved(null);
  }, []);

  const states = useMemo(() => new Map(fields.map((f) => [f.field, fieldState(f, values)])), [fields, values]);

  /** Fields on the form: readable, not hidden (by meta or a condition), and not a generated key of a new item. */
  const visible = useCallback((info: FieldInfo) => {
    const f = info.field;
    if (!readable(f.field)) return false;
    if (states.get(f.field)?.hidden) return false;
    if (f.schema?.is_primary_key && isNew && (f.schema.has_auto_increment || f.meta?.special?.includes('uuid'))) return false;
    if (info.kind === 'none' && f.type === 'alias') return false;
    return true;
  }, [readable, states, isNew]);

  const disabledOf = (info: FieldInfo) => {
    const f = info.field;
    if (!writable(f.field) || states.get(f.field)?.readonly) return true;
    if (f.schema?.is_primary_key && !isNew) return true;
    return busy !== null;
  };

  const title = isNew ? `New item in ${titleOf(collection)}` : singleton ? titleOf(collection)
    : displayOf(draftMode ? draft?.base : item.data, collection, collections, fields, pk) || `Item ${id}`;

  /** What `required` and the JSON inputs refuse, before anything is sent. */
  function checkBeforeSend(): Record<string, string> {
    const errs: Record<string, string> = { ...localErrors };
    for (const info of infos) {
      const f = info.field;
      // A draft is work in progress: `required` applies when it is promoted, as the item is written.
      if (draftMode || !visible(info) || !states.get(f.field)?.required || info.kind === 'group') continue;
      const v = values[f.field];
      if (info.kind === 'hash' ? isEmpty(v) && !(item.data && !isEmpty(item.data[f.field])) : isEmpty(v)) errs[f.field] = 'This field is required.';
    }
    // meta.validation: a filter the item must pass, checked on the values being sent (the API has the last word).
    for (const info of infos) {
      const f = info.field;
      const rule = f.meta?.validation;
      if (!rule || errs[f.field] || !visible(info) || !(f.field in edits || isNew) || isEmpty(values[f.field])) continue;
      if (!matches(rule, values)) errs[f.field] = f.meta?.validation_message || 'This value does not pass the field’s validation.';
    }
    return errs;
  }

  function focusFirstError(errs: Record<string, string>) {
    requestAnimationFrame(() => {
      const first = infos.find((i) => errs[i.field.field]);
      const el = first ? document.getElementById(fieldDomId(first)) : null;
      if (el && 'focus' in el) el.focus();
      else document.getElementById('item-general-error')?.focus();
    });
  }

  function showError(err: unknown) {
    const byField: Record<string, string> = {};
    if (err instanceof ApiError) {
      for (const e of err.items) {
        if (!e.field || e.field in byField) continue;
        const custom = fields.find((f) => f.field === e.field)?.meta?.validation_message;
        const isValidation = e.code === 'FAILED_VALIDATION' || /^Validation failed/.test(e.message);
        byField[e.field] = custom && isValidation ? custom : fieldMessage(e.code, e.message);
      }
    }
    const shown = Object.fromEntries(Object.entries(byField).filter(([f]) => infos.some((i) => i.field.field === f && visible(i))));
    setFieldErrors(shown);
    setGeneralError(err);
    focusFirstError(shown);
  }

  /** Saves the form (on a draft: into the draft); true when it was saved. */
  async function save(mode: 'save' | 'stay' | 'copy'): Promise<boolean> {
    if (busy) return false;
    setSaved(null);
    const errs = checkBeforeSend();
    if (Object.keys(errs).length > 0) {
      setFieldErrors(errs);
      setGeneralError(new Error(Object.keys(errs).length === 1 ? 'One field needs attention before saving.' : `${Object.keys(errs).length} fields need attention before saving.`));
      focusFirstError(errs);
      return false;
    }
    setBusy(mode);
    setGeneralError(null);
    setFieldErrors({});
    try {
      if (draftMode && draft) {
        // Only the changed fields, merged into the draft's delta; the item is not written.
        const body = draftPayload(infos, edits, base, draft.inDelta, draft.main ?? null, ctx);
        if (Object.keys(body).length > 0) await request('POST', `/versions/${encodeURIComponent(versionId!)}/save`, { body });
        await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(collection) });
        setEdits({});
        setLocalErrors({});
        setSaved('Draft saved. The item itself is unchanged until the draft is promoted.');
        setPreviewReload((n) => n + 1);
        return true;
      }
      let key: unknown;
      if (mode === 'copy') {
        const body = copyPayload(infos.filter((i) => visible(i) && writableFor(i, 'create')), values, pk, ctx);
        key = createdKey(await request<unknown>('POST', `/items/${encodeURIComponent(collection)}`, { body }), pk);
      } else {
        const body = savePayload(infos, edits, base, ctx);
        if (isNew) {
          key = createdKey(await request<unknown>('POST', `/items/${encodeURIComponent(collection)}`, { body }), pk);
        } else if (Object.keys(body).length > 0) {
          await request('PATCH', itemPath(collection, id), { body });
          key = id;
        } else key = id;
      }
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(collection) });
      setEdits({});
      setLocalErrors({});
      if (mode === 'save' && !singleton) {
        guard.allowNext();
        navigate(`/${collection}`);
        return true;
      }
      if ((mode === 'copy' || isNew) && key !== undefined && key !== null) {
        guard.allowNext();
        navigate(`/${collection}/${encodeURIComponent(String(key))}`, { replace: isNew });
        return true;
      }
      setSaved('Saved.');
      setPreviewReload((n) => n + 1);
      return true;
    } catch (err) {
      showError(err);
      return false;
    } finally {
      setBusy(null);
    }
  }

  /** "New draft": of this item, or (on the new-item page) of new content, whose key it needs first. */
  function openNewDraft() {
    if (!isNew) {
      setNewDraft({ kind: 'item' });
      return;
    }
    const kind = newContentKind(fields, fields.find((f) => f.field === pk), values[pk]);
    if (kind.kind === 'needs-key') {
      const errs = { [pk]: 'A draft of a new item needs the item’s key: type it here first.' };
      setFieldErrors(errs);
      setGeneralError(new Error('The new item’s key is missing.'));
      focusFirstError(errs);
      return;
    }
    setNewDraft(kind);
  }

  /** Creates the draft with the form's unsaved changes as its first delta, and opens it. */
  async function createDraft(name: string, key: string): Promise<void> {
    const pending = Object.keys(localErrors);
    if (pending.length > 0) throw new Error('A field holds a value that cannot be sent yet (marked in the form); fix it first.');
    let target: { item: string; versionId: string };
    if (isNew) {
      const created = await createNewContentDraft({ collection, fields, pk, kind: newDraft!, name, key, delta: savePayload(infos, edits, defaults, ctx) });
      target = { item: created.item, versionId: created.versionId };
    } else {
      target = { item: id!, versionId: await createVersion({ key, name, collection, item: id!, delta: savePayload(infos, edits, base, ctx) }) };
    }
    await queryClient.invalidateQueries({ queryKey: ['versions', collection] });
    if (isNew) await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(collection) });
    setFlash(`Draft “${name}” created.${dirty ? ' Your changes are in it; the item is unchanged.' : ' Changes you save now go into the draft, not the item.'}`);
    guard.allowNext();
    setNewDraft(null);
    navigate(itemHref(collection, target.item, target.versionId), { replace: isNew });
  }

  async function afterPromote() {
    setFlash(`Promoted “${draft?.version ? versionTitle(draft.version) : 'the draft'}”: its changes are in the item now.`);
    await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(collection) });
    guard.allowNext();
    navigate(itemHref(collection, id!));
  }

  async function afterDelete() {
    const name = draft?.version ? versionTitle(draft.version) : 'the draft';
    await queryClient.invalidateQueries({ queryKey: ['versions', collection] });
    guard.allowNext();
    if (draft?.newContent) {
      navigate(`/${collection}`);
      return;
    }
    setFlash(`Deleted the draft “${name}”.`);
    navigate(itemHref(collection, id!));
  }

  function writableFor(info: FieldInfo, action: 'create' | 'update') {
    return fieldAllowed(perms, admin, collection, action, info.field.field) && !info.field.schema?.is_primary_key;
  }

  async function remove() {
    setBusy('delete');
    try {
      await request('DELETE', itemPath(collection, id));
      setConfirmDelete(false);
      await queryClient.invalidateQueries({ predicate: (q) => q.queryKey.includes(collection) });
      queryClient.removeQueries({ queryKey });
      guard.allowNext();
      navigate(`/${collection}`);
    } catch (err) {
      setConfirmDelete(false);
      setGeneralError(err);
    } finally {
      setBusy(null);
    }
  }

  const saveRef = useRef(save);
  saveRef.current = save;
  // Ctrl/Cmd+S saves and stays.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (mayWrite && !document.querySelector('dialog[open]')) void saveRef.current('stay');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [mayWrite]);

  if (!known) return <div className="main-pane"><div className="page-body"><p className="page-message">There is no collection named “{collection}” that you can open.</p></div></div>;
  if (draftMode) {
    const problem = !isVersionId(versionId) ? new Error('This link’s version is not valid: the address has to end in ?version= and the draft’s id.')
      : draft?.error instanceof ApiError && draft.error.status === 403 ? new Error('It does not exist, it is a draft of another item, or you may not see drafts of it.')
        : draft?.error ? new Error(versionErrorText(draft.error)) : null;
    if (problem) {
      return (
        <div className="main-pane">
          <header className="page-header"><h1>{titleOf(collection)}</h1></header>
          <div className="page-body">
            <div className="page-message">
              <p className="notice notice-error" role="alert">This draft could not be opened. {problem.message}</p>
              <p><Link href={itemHref(collection, id!)}>Open the item without the draft</Link>{draft?.error instanceof ApiError && draft.error.retryable && <> or <button type="button" className="btn btn-small" onClick={() => draft.refetch()}>Try again</button></>}</p>
            </div>
          </div>
        </div>
      );
    }
    if (!draft || draft.loading) return <Loading label="Loading the draft" />;
  } else if (!isNew && item.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>{titleOf(collection)}</h1></header>
        <div className="page-body"><ErrorNotice error={item.error} onRetry={() => void item.refetch()} /></div>
      </div>
    );
  }
  if (!isNew && !draftMode && !item.data) {
    if (item.isSuccess) return <div className="main-pane"><div className="page-body"><p className="page-message">This item does not exist, or you may not see it.</p></div></div>;
    return <Loading label="Loading the item" />;
  }

  const topLevel = infos.filter((i) => !i.field.meta?.group || !infos.some((g) => g.kind === 'group' && g.field.field === i.field.meta?.group));

  const renderField = (info: FieldInfo) => {
    if (!visible(info)) return null;
    const f = info.field;
    if (info.kind === 'group') {
      const children = infos.filter((c) => c.field.meta?.group === f.field && visible(c));
      if (children.length === 0) return null;
      const collapsible = f.meta?.interface !== 'group-raw';
      const startOpen = (f.meta?.options as { start?: string } | null)?.start !== 'closed';
      return collapsible ? (
        <details key={f.field} className="field-group full" open={startOpen || children.some((c) => fieldErrors[c.field.field])}>
          <summary>{labelOf(f)}</summary>
          {f.meta?.note && <p className="field-note">{f.meta.note}</p>}
          <div className="form-grid">{children.map(renderField)}</div>
        </details>
      ) : (
        <fieldset key={f.field} className="field-group full">
          <legend>{labelOf(f)}</legend>
          <div className="form-grid">{children.map(renderField)}</div>
        </fieldset>
      );
    }
    const state = states.get(f.field)!;
    // A condition may change the interface's options (choices of a dropdown, for one).
    if (state.options !== (f.meta?.options ?? null)) info = { ...info, field: { ...f, meta: { ...f.meta, options: state.options } } };
    const relational = info.kind === 'm2o' || info.kind === 'file' || info.kind === 'o2m' || info.kind === 'm2m';
    const full = f.meta?.width === 'full' || f.meta?.width === 'fill' || !f.meta?.width && (relational && info.kind !== 'm2o' && info.kind !== 'file' || ['textarea', 'markdown', 'html', 'json'].includes(info.kind)) || info.kind === 'o2m' || info.kind === 'm2m';
    // A value that cannot be sent as typed (JSON, a number) says so beside its input already.
    const error = fieldErrors[f.field] !== undefined && fieldErrors[f.field] !== localErrors[f.field] ? fieldErrors[f.field] : undefined;
    const required = state.required;
    return (
      <FormField key={f.field} info={info} required={required} note={f.meta?.note} error={error} full={Boolean(full)} group={info.kind === 'o2m' || info.kind === 'm2m'}>
        {({ id: domId, describedBy, labelId }) => relational ? (
          <RelationalInput info={info} ctx={ctx} id={domId} labelId={labelId} describedBy={describedBy} value={values[f.field]} stored={base[f.field]}
            onChange={(v) => setValue(f.field, v)} disabled={disabledOf(info)} invalid={Boolean(error)} isNew={isNew} />
        ) : (
          <FieldInput info={info} id={domId} value={info.kind === 'hash' ? edits[f.field] : values[f.field]} onChange={(v) => (v === undefined ? setEdits(({ [f.field]: _x, ...rest }) => rest) : setValue(f.field, v))}
            disabled={disabledOf(info)} required={required} invalid={Boolean(error)} describedBy={describedBy} isNew={isNew}
            hasStored={!isNew && base[f.field] !== null && base[f.field] !== undefined}
            onLocalError={(m) => setLocalErrors((prev) => {
              if (m === null) { if (!(f.field in prev)) return prev; const { [f.field]: _y, ...rest } = prev; return rest; }
              return prev[f.field] === m ? prev : { ...prev, [f.field]: m };
            })} />
        )}
      </FormField>
    );
  };

  const listHref = `/${collection}`;
  const version = draftMode ? draft?.version ?? null : null;
  const showMenu = versioning || draftMode ? caps.has('versioning:view') || caps.has('versioning:create') : false;
  // Live preview: the website's page of the item as saved (a new item has none yet).
  const previewTemplate = !isNew && meta?.preview_url ? meta.preview_url : null;
  const showPreview = previewTemplate !== null && previewOpen;
  const togglePreview = () => setPreviewOpen((o) => {
    sessionStorage.setItem('studio.item-preview', o ? 'closed' : 'open');
    return !o;
  });
  const hasStatusField = fields.some((f) => f.field === 'status');
  return (
    <div className={`item-layout${showPreview ? ' with-preview' : ''}`}>
      <form ref={formRef} className="main-pane item-main" aria-labelledby="item-title" noValidate
        onSubmit={(e) => e.preventDefault()}
        onKeyDown={(e) => {
          // Enter in a one-line input does not submit (a half-typed form is not a save); Ctrl/Cmd+S does.
          const t = e.target as HTMLElement;
          if (e.key === 'Enter' && t instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(t.type)) e.preventDefault();
        }}>
        <header className="page-header">
          {!singleton && <Link href={listHref} className="btn btn-ghost icon-btn" aria-label={`Back to ${titleOf(collection)}`}>←</Link>}
          <div className="item-heading">
            <div className="muted item-crumb">
              <span>{titleOf(collection)}</span>
              {showMenu && (
                <VersionMenu collection={collection} item={isNew ? null : id} current={version} mayList={caps.has('versioning:view')}
                  onNewDraft={mayDraft ? openNewDraft : undefined} />
              )}
              {previewTemplate !== null && (
                <button type="button" className="btn btn-small preview-toggle" aria-pressed={showPreview} onClick={togglePreview}>
                  <span aria-hidden="true">◧</span>Live preview
                </button>
              )}
              {dirty && <span className="badge item-dirty">Unsaved changes</span>}
            </div>
            <h1 id="item-title">{title}</h1>
          </div>
          <div className="item-actions">
            {!singleton && (version || (!isNew && id !== null)) && (
              // A draft of new content is scheduled by the key it will create.
              <ScheduleControl collection={collection} item={version && isNew ? version.item : id!}
                version={version && { id: version.id, key: version.key, name: version.name, status: version.status }} />
            )}
            {mayDelete && <button type="button" className="btn btn-danger" onClick={() => setConfirmDelete(true)} disabled={busy !== null}>Delete</button>}
            {!isNew && !singleton && !draftMode && mayCreate && (
              <button type="button" className="btn" onClick={() => void save('copy')} disabled={busy !== null}>{busy === 'copy' ? 'Copying…' : 'Save as copy'}</button>
            )}
            {isNew && mayDraft && (
              <button type="button" className="btn" aria-haspopup="dialog" onClick={openNewDraft} disabled={busy !== null}>Save as draft…</button>
            )}
            {mayWrite && draftMode && (
              <button type="button" className="btn btn-primary" onClick={() => void save('stay')} disabled={busy !== null} aria-keyshortcuts="Control+S">{busy === 'stay' ? 'Saving…' : 'Save draft'}</button>
            )}
            {mayWrite && !draftMode && (
              <>
                <button type="button" className="btn" onClick={() => void save('stay')} disabled={busy !== null} aria-keyshortcuts="Control+S">{busy === 'stay' ? 'Saving…' : 'Save and stay'}</button>
                {!singleton && <button type="button" className="btn btn-primary" onClick={() => void save('save')} disabled={busy !== null}>{busy === 'save' ? 'Saving…' : 'Save'}</button>}
              </>
            )}
            {!mayWrite && <span className="badge">Read only</span>}
          </div>
        </header>
        <div className="page-body item-body">
          {version && rights && (
            <VersionBar version={version} rights={rights} collection={collection} me={me?.id} dirty={dirty} newContent={Boolean(draft?.newContent)}
              setsPublished={hasStatusField && !draft?.inDelta('status') && !('status' in edits)}
              saveFirst={() => save('stay')}
              onSubmitted={() => setSaved(`Submitted “${versionTitle(version)}” for review.`)}
              onPromoted={() => void afterPromote()} onDeleted={() => void afterDelete()} />
          )}
          <div className="item-messages" aria-live="polite">
            {generalError !== null && (
              <div className="notice notice-error" role="alert" id="item-general-error" tabIndex={-1}>
                <span>{generalMessage(generalError, fieldErrors)}</span>
              </div>
            )}
            {saved && <div className="notice notice-success" role="status">{saved}</div>}
          </div>
          <div className="form-grid item-form">{topLevel.map(renderField)}</div>
        </div>
      </form>
      {showPreview && (
        <PreviewPane address={previewAddress(previewTemplate, base, draftMode ? versionId : null)} reloadKey={previewReload}
          title={title} onClose={togglePreview} />
      )}
      {!showPreview && !draftMode && !isNew && item.data && item.data[pk] !== undefined && item.data[pk] !== null && (
        <Sidebar ctx={ctx} id={String(item.data[pk])} current={item.data} infos={infos}
          mayUpdate={(f) => writable(f) && !(allFields.find((x) => x.collection === collection && x.field === f)?.schema?.is_primary_key)}
          onReverted={async () => { setEdits({}); await queryClient.invalidateQueries({ queryKey }); }} dirty={dirty} />
      )}
      <ConfirmDialog open={confirmDelete} title="Delete this item?" confirmLabel={busy === 'delete' ? 'Deleting…' : 'Delete'} danger
        onCancel={() => setConfirmDelete(false)} onConfirm={() => void remove()} busy={busy === 'delete'}>
        <p>“{title}” will be deleted. This cannot be undone.</p>
      </ConfirmDialog>
      {newDraft && (
        <NewDraftDialog target={newDraft} collectionTitle={titleOf(collection)} carriesEdits={dirty} onCreate={createDraft} onClose={() => setNewDraft(null)} />
      )}
      {guard.dialog}
    </div>
  );
}

function labelOf(f: Field): string {
  return titleOf(f.field);
}

/** POST answers the new item's key (or the item, when asked for fields). */
function createdKey(answer: unknown, pk: string): unknown {
  return answer !== null && typeof answer === 'object' ? (answer as Item)[pk] : answer;
}

/** The server's words for a field, where a plainer sentence helps. */
function fieldMessage(code: string, message: string): string {
  if (code === 'RECORD_NOT_UNIQUE') return 'This value is already used by another item; it has to be unique.';
  return message;
}

function generalMessage(err: unknown, fieldErrors: Record<string, string>): string {
  const named = Object.keys(fieldErrors).length;
  if (err instanceof ApiError) {
    if (named > 0 && err.items.every((i) => i.field && i.field in fieldErrors)) return `Not saved: ${named === 1 ? 'a field needs' : `${named} fields need`} attention (marked below). Nothing you typed was lost.`;
    return `Not saved: ${messageOf(err)}`;
  }
  return messageOf(err);
}
