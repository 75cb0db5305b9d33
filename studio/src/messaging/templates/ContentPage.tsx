/** Messaging > Templates > a template's content (one provider and locale): subject and text edited beside a live
 * preview rendered by the server as a send would render it (the template's layout around it for email), with
 * sample variables made from the template's and its layout's variables_schema, editable as JSON. Syntax errors show
 * on their line as typed. "new" as the content id adds one. */
import { useId, useMemo, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { channelLabel, providersQuery, type Provider, type TemplateContent } from '../api.ts';
import { JsonField, parseJson, prettyJson } from '../preview/JsonField.tsx';
import { PreviewPane } from '../preview/PreviewPane.tsx';
import { sampleVariables } from '../preview/samples.ts';
import { TemplateTextField } from '../preview/TemplateTextField.tsx';
import { useLivePreview } from '../preview/use-live-preview.ts';
import { templateQuery, type LoadedTemplate } from './template-query.ts';

export default function ContentPage({ templateId, contentId }: { templateId: string; contentId: string }) {
  const template = useQuery(templateQuery(templateId));
  const providers = useQuery(providersQuery);
  // A content just added keeps its editor (and its "Saved") when the address moves from /new to its id.
  const created = useRef<string | null>(null);
  const failed = template.error ?? providers.error;
  if (failed) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Template content</h1></header>
        <div className="page-body"><ErrorNotice error={failed} onRetry={() => { void template.refetch(); void providers.refetch(); }} /></div>
      </div>
    );
  }
  if (!template.data || !providers.data) return <div className="main-pane"><Loading label="Loading the content" /></div>;
  const content = contentId === 'new' ? null : template.data.contents.find((c) => String(c.id) === contentId);
  if (content === undefined) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Template content</h1></header>
        <div className="page-message">
          <p>This content no longer exists.</p>
          <Link className="btn" href={`/templates/${encodeURIComponent(templateId)}`}>Back to {template.data.name}</Link>
        </div>
      </div>
    );
  }
  return (
    <ContentEditor key={contentId === created.current ? 'new' : contentId} template={template.data} content={content} providers={providers.data}
      onCreated={(id) => { created.current = String(id); }} />
  );
}

function ContentEditor({ template, content, providers, onCreated }: {
  template: LoadedTemplate; content: TemplateContent | null; providers: Provider[]; onCreated(id: number): void;
}) {
  const ids = useId();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const usable = providers.filter((p) => (template.channels ?? []).includes(p.channel));
  const [providerId, setProviderId] = useState<number | ''>(content?.provider_id ?? usable.find((p) => p.is_primary)?.id ?? usable[0]?.id ?? '');
  const [locale, setLocale] = useState(content?.locale ?? 'default');
  const [active, setActive] = useState(content?.active ?? true);
  const [subject, setSubject] = useState(content?.subject ?? '');
  const [text, setText] = useState(content?.content ?? '');
  const samples = useMemo(() => prettyJson(sampleVariables(template.variables_schema, template.layout?.variables_schema)), [template]);
  const [variablesText, setVariablesText] = useState(samples);
  const [lastVariables, setLastVariables] = useState<Record<string, unknown>>(() => JSON.parse(samples || '{}') as Record<string, unknown>);
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const provider = providers.find((p) => p.id === providerId);
  const channel = provider?.channel ?? template.channels?.[0] ?? 'email';

  function changeVariables(v: string): void {
    setVariablesText(v);
    const parsed = parseJson(v);
    if (parsed.ok && (parsed.value === null || (typeof parsed.value === 'object' && !Array.isArray(parsed.value)))) {
      setLastVariables((parsed.value ?? {}) as Record<string, unknown>);
    }
  }

  const live = useLivePreview(
    text.trim() === '' ? null : { template_id: template.id, channel, subject: subject || null, content: text, variables: lastVariables },
    { subject, content: text },
  );

  const save = useMutation({
    mutationFn: async () => {
      const body = { provider_id: providerId === '' ? null : providerId, locale: locale.trim() || 'default', subject: subject === '' ? null : subject, content: text, active };
      if (content) return request<number>('PATCH', `/notify/contents/${content.id}`, { body });
      return request<number>('POST', `/notify/templates/${encodeURIComponent(template.id)}/contents`, { body });
    },
    onSuccess: async (id) => {
      await qc.invalidateQueries({ queryKey: ['messaging', 'template', template.id] });
      setSaved(true);
      if (!content) {
        onCreated(Number(id));
        navigate(`/templates/${encodeURIComponent(template.id)}/contents/${id}`, { replace: true });
      }
    },
  });
  const fe = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const placed = ['provider_id', 'locale', 'subject', 'content'];
  const variablesParsed = parseJson(variablesText);
  const variablesShape = variablesParsed.ok && variablesParsed.value !== null && (typeof variablesParsed.value !== 'object' || Array.isArray(variablesParsed.value))
    ? 'The variables must be a JSON object.' : undefined;
  const templateHref = `/templates/${encodeURIComponent(template.id)}`;

  return (
    <div className="main-pane">
      <header className="page-header">
        <nav aria-label="Breadcrumb" className="crumbs"><Link href="/templates">Templates</Link><span aria-hidden="true">/</span><Link href={templateHref}>{template.name}</Link></nav>
        <h1>{content ? `${provider?.name ?? 'Content'} · ${content.locale}` : 'New content'}</h1>
        <span role="status" className="save-state">{saved && !save.isPending ? 'Saved' : ''}</span>
        {content && <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>Delete</button>}
        <button type="submit" form={`${ids}-form`} className="btn btn-primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : content ? 'Save' : 'Add content'}</button>
      </header>
      <div className="editor-split">
        <form id={`${ids}-form`} className="editor-form" noValidate aria-label="Template content" onSubmit={(e) => { e.preventDefault(); setSaved(false); save.mutate(); }}>
          {usable.length === 0 && (
            <div className="notice notice-warning" role="status">
              <span>No provider sends on this template's channels ({(template.channels ?? []).map(channelLabel).join(', ') || 'none'}). <Link href="/providers">Add a provider</Link> first.</span>
            </div>
          )}
          <div className="form-row">
            <div className="field wide">
              <label htmlFor={`${ids}-provider`}>Provider</label>
              <select id={`${ids}-provider`} value={providerId} onChange={(e) => { setProviderId(e.target.value === '' ? '' : Number(e.target.value)); setSaved(false); }}
                aria-invalid={fe.provider_id ? true : undefined}>
                {providerId === '' && <option value="">Choose a provider</option>}
                {usable.map((p) => <option key={p.id} value={p.id}>{p.name} · {channelLabel(p.channel)}{p.is_primary ? ', primary' : ''}</option>)}
              </select>
              {fe.provider_id && <span className="field-error">{fe.provider_id}</span>}
            </div>
            <div className="field narrow">
              <label htmlFor={`${ids}-locale`}>Locale</label>
              <input id={`${ids}-locale`} className="mono" value={locale} onChange={(e) => { setLocale(e.target.value); setSaved(false); }} aria-describedby={`${ids}-locale-note`}
                aria-invalid={fe.locale ? true : undefined} spellCheck={false} />
              <span className="field-note" id={`${ids}-locale-note`}>fr, en-US… or default.</span>
              {fe.locale && <span className="field-error">{fe.locale}</span>}
            </div>
            <label className="check field-check"><input type="checkbox" checked={active} onChange={(e) => { setActive(e.target.checked); setSaved(false); }} /> Active</label>
          </div>
          <TemplateTextField id={`${ids}-subject`} label="Subject" value={subject} onChange={(v) => { setSubject(v); setSaved(false); }} single
            errors={live.errors?.subject} serverError={fe.subject} />
          <TemplateTextField id={`${ids}-content`} label={channel === 'email' ? 'Content (HTML)' : 'Content'} value={text} onChange={(v) => { setText(v); setSaved(false); }}
            errors={live.errors?.content} serverError={fe.content} required rows={16}
            note={<>{'{{name}}'} inserts a variable (escaped), {'{{{name}}}'} without escaping; {'{{#if x}}…{{/if}}'}, {'{{#each list}}…{{/each}}'}.</>} />
          {save.error !== null && !Object.keys(fe).some((f) => placed.includes(f)) && <ErrorNotice error={save.error} />}
        </form>
        <aside className="editor-preview" aria-label="Preview">
          <PreviewPane live={live} channel={channel} empty="Type the content to see it rendered." layoutNote={channel === 'email' && template.layout ? `In the layout ${template.layout.name}.` : undefined} />
          <JsonField id={`${ids}-variables`} label="Sample variables" value={variablesText} onChange={changeVariables} rows={6} error={variablesShape}
            note="Only for the preview; made from the variables schema."
            actions={<button type="button" className="btn btn-small btn-ghost" onClick={() => changeVariables(samples)} disabled={variablesText === samples}>Reset samples</button>} />
        </aside>
      </div>
      {deleting && content && (
        <ConfirmDialog title="Delete this content?" confirmLabel="Delete content" onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/notify/contents/${content.id}`);
            await qc.invalidateQueries({ queryKey: ['messaging', 'template', template.id] });
            navigate(templateHref);
          }}>
          <p>The {content.locale} content for {provider?.name ?? 'this provider'} is deleted. Sends in that locale fall back to the default locale's content.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
