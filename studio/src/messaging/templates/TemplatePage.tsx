/** Messaging > Templates > one template: its settings (name, status, channels, layout, copy to the admins, the
 * variables it takes as a JSON schema) and its contents, one per provider and locale, each edited on its own page
 * beside a live preview; a content's active flag switches here. */
import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { CHANNELS, channelLabel, layoutNamesQuery, providersQuery, type Channel, type TemplateContent, type TemplateStatus } from '../api.ts';
import { JsonField, parseJson, prettyJson } from '../preview/JsonField.tsx';
import { templateQuery, type LoadedTemplate } from './template-query.ts';

export default function TemplatePage({ id }: { id: string }) {
  const template = useQuery(templateQuery(id));
  const layouts = useQuery(layoutNamesQuery);
  const providers = useQuery(providersQuery);
  const failed = template.error ?? layouts.error ?? providers.error;
  if (failed) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Template</h1></header>
        <div className="page-body"><ErrorNotice error={failed} onRetry={() => { void template.refetch(); void layouts.refetch(); void providers.refetch(); }} /></div>
      </div>
    );
  }
  if (!template.data || !layouts.data || !providers.data) return <div className="main-pane"><Loading label="Loading the template" /></div>;
  return <TemplateEditor key={id} template={template.data} layouts={layouts.data} />;
}

function TemplateEditor({ template, layouts }: { template: LoadedTemplate; layouts: { id: string; name: string }[] }) {
  const ids = useId();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState(template.name);
  const [description, setDescription] = useState(template.description ?? '');
  const [status, setStatus] = useState<TemplateStatus>(template.status);
  const [channels, setChannels] = useState<Channel[]>(template.channels ?? []);
  const [layoutId, setLayoutId] = useState(template.layout_id ?? '');
  const [ccAdmin, setCcAdmin] = useState(template.cc_admin);
  const [schema, setSchema] = useState(prettyJson(template.variables_schema));
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  useEffect(() => { if (saved) { const t = setTimeout(() => setSaved(false), 3000); return () => clearTimeout(t); } }, [saved]);

  const save = useMutation({
    mutationFn: async () => {
      const parsed = parseJson(schema);
      if (!parsed.ok) throw new ApiError(400, [{ message: parsed.message, code: 'INVALID_PAYLOAD', field: 'variables_schema' }]);
      await request('PATCH', `/notify/templates/${encodeURIComponent(template.id)}`, {
        body: { name: name.trim(), description: description.trim() || null, status, channels, layout_id: layoutId || null, cc_admin: ccAdmin, variables_schema: parsed.value },
      });
    },
    onSuccess: async () => {
      setSaved(true);
      await qc.invalidateQueries({ queryKey: ['messaging', 'template', template.id] });
      await qc.invalidateQueries({ queryKey: ['messaging', 'templates'] });
    },
  });
  const fe = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const placed = ['name', 'description', 'status', 'channels', 'layout_id', 'variables_schema'];

  return (
    <div className="main-pane">
      <header className="page-header">
        <nav aria-label="Breadcrumb" className="crumbs"><Link href="/templates">Templates</Link></nav>
        <h1>{template.name}</h1>
        <span className="mono muted title-aside">{template.id}</span>
        <span role="status" className="save-state">{saved ? 'Saved' : ''}</span>
        <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)} disabled={template.is_system}
          title={template.is_system ? 'System templates cannot be deleted; archive them instead.' : undefined}>Delete</button>
        <button type="submit" form={`${ids}-form`} className="btn btn-primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
      </header>
      <div className="page-body messaging-stack">
        <form id={`${ids}-form`} className="messaging-card" noValidate onSubmit={(e) => { e.preventDefault(); save.mutate(); }} aria-label="Template settings">
          <div className="form-grid">
            <div className="field">
              <label htmlFor={`${ids}-name`}>Name</label>
              <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={fe.name ? true : undefined} />
              {fe.name && <span className="field-error">{fe.name}</span>}
            </div>
            <div className="field">
              <label htmlFor={`${ids}-status`}>Status</label>
              <select id={`${ids}-status`} value={status} onChange={(e) => setStatus(e.target.value as TemplateStatus)} aria-describedby={`${ids}-status-note`}>
                <option value="draft">Draft</option>
                <option value="published">Published</option>
                <option value="archived">Archived</option>
              </select>
              <span className="field-note" id={`${ids}-status-note`}>Only published templates can be sent.</span>
            </div>
            <div className="field full">
              <label htmlFor={`${ids}-description`}>Description</label>
              <input id={`${ids}-description`} value={description} onChange={(e) => setDescription(e.target.value)} />
            </div>
            <fieldset className="checks">
              <legend>Channels</legend>
              {CHANNELS.map((c) => (
                <label key={c.id} className="check">
                  <input type="checkbox" checked={channels.includes(c.id)} onChange={(e) => setChannels((prev) => e.target.checked ? [...prev, c.id] : prev.filter((x) => x !== c.id))} /> {c.label}
                </label>
              ))}
              {fe.channels && <span className="field-error">{fe.channels}</span>}
            </fieldset>
            <div className="field">
              <label htmlFor={`${ids}-layout`}>Layout</label>
              <select id={`${ids}-layout`} value={layoutId} onChange={(e) => setLayoutId(e.target.value)} aria-describedby={`${ids}-layout-note`}>
                <option value="">None</option>
                {layouts.map((l) => <option key={l.id} value={l.id}>{l.name}</option>)}
              </select>
              <span className="field-note" id={`${ids}-layout-note`}>Wraps email contents.</span>
              {fe.layout_id && <span className="field-error">{fe.layout_id}</span>}
              <label className="check"><input type="checkbox" checked={ccAdmin} onChange={(e) => setCcAdmin(e.target.checked)} /> Copy the admin addresses of the settings</label>
            </div>
            <div className="full">
              <JsonField id={`${ids}-schema`} label="Variables (JSON schema)" value={schema} onChange={setSchema} rows={7} error={fe.variables_schema}
                note="The variables a send must give, checked before anything is sent. The preview's sample values are made from it." />
            </div>
          </div>
          {save.error !== null && !Object.keys(fe).some((f) => placed.includes(f)) && <ErrorNotice error={save.error} />}
        </form>
        <ContentsSection template={template} />
      </div>
      {deleting && (
        <ConfirmDialog title={`Delete ${template.name}?`} confirmLabel="Delete template" typeToConfirm={template.id} onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/notify/templates/${encodeURIComponent(template.id)}`);
            await qc.invalidateQueries({ queryKey: ['messaging', 'templates'] });
            navigate('/templates');
          }}>
          <p>The template and its {template.contents.length} {template.contents.length === 1 ? 'content' : 'contents'} are deleted. Sends that use its id fail from then on; past logs stay.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function ContentsSection({ template }: { template: LoadedTemplate }) {
  const qc = useQueryClient();
  const providers = useQuery(providersQuery);
  const [removing, setRemoving] = useState<TemplateContent | null>(null);
  // The box shows the change at once (set in the click's own event, as a controlled checkbox needs); once the
  // template is read again the server's value takes over, so a failure puts it back, and the error says why.
  const [flipped, setFlipped] = useState<Record<number, boolean>>({});
  const toggle = useMutation({
    mutationFn: (a: { id: number; active: boolean }) => request('PATCH', `/notify/contents/${a.id}`, { body: { active: a.active } }),
    onSettled: async (_d, _e, a) => {
      await qc.invalidateQueries({ queryKey: templateQuery(template.id).queryKey });
      setFlipped(({ [a.id]: _done, ...rest }) => rest);
    },
  });
  const flip = (c: TemplateContent, active: boolean): void => {
    setFlipped((prev) => ({ ...prev, [c.id]: active }));
    toggle.mutate({ id: c.id, active });
  };
  const providerOf = (id: number) => providers.data?.find((p) => p.id === id);
  const rows = [...template.contents].sort((a, b) => (providerOf(a.provider_id)?.name ?? '').localeCompare(providerOf(b.provider_id)?.name ?? '') || a.locale.localeCompare(b.locale));
  const base = `/templates/${encodeURIComponent(template.id)}/contents`;

  return (
    <section className="messaging-card" aria-labelledby="contents-title">
      <div className="card-head">
        <h2 id="contents-title">Contents</h2>
        <Link href={`${base}/new`} className="btn btn-small">Add content</Link>
      </div>
      <p className="muted card-note">A send picks the content of the channel's primary provider in the recipient's locale, else its <span className="mono">default</span> locale.</p>
      {toggle.error !== null && <ErrorNotice error={toggle.error} />}
      {rows.length === 0 ? <p className="muted card-empty">No contents yet: add one per provider and locale.</p> : (
        <table className="grid" aria-labelledby="contents-title">
          <thead><tr><th scope="col">Provider</th><th scope="col">Channel</th><th scope="col">Locale</th><th scope="col">Subject</th><th scope="col">Active</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {rows.map((c) => {
              const p = providerOf(c.provider_id);
              const label = `${p?.name ?? `Provider ${c.provider_id}`}, ${c.locale}`;
              return (
                <tr key={c.id}>
                  <th scope="row"><Link className="row-link strong" href={`${base}/${c.id}`} aria-label={`Edit content ${label}`}>{p?.name ?? `Provider ${c.provider_id}`}</Link></th>
                  <td>{p ? channelLabel(p.channel) : ''}</td>
                  <td className="mono">{c.locale}</td>
                  <td className="cell-wide">{c.subject ?? <span className="muted">None</span>}</td>
                  <td><input type="checkbox" checked={flipped[c.id] ?? c.active} disabled={c.id in flipped} onChange={(e) => flip(c, e.target.checked)} aria-label={`Active: ${label}`} /></td>
                  <td className="row-actions">
                    <button type="button" className="btn btn-small btn-ghost btn-danger-text" onClick={() => setRemoving(c)} aria-label={`Delete content ${label}`}>Delete</button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {removing && (
        <ConfirmDialog title="Delete this content?" confirmLabel="Delete content" onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await request('DELETE', `/notify/contents/${removing.id}`);
            setRemoving(null);
            await qc.invalidateQueries({ queryKey: ['messaging', 'template', template.id] });
          }}>
          <p>The {removing.locale} content for {providerOf(removing.provider_id)?.name ?? 'this provider'} is deleted. Sends in that locale fall back to the default locale's content.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
