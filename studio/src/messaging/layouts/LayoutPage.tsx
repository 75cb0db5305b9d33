/** Messaging > Layouts > one layout: its text edited beside a live preview (a sample message in the place of
 * {{{content}}}, the layout's own variables from samples of its variables_schema), syntax errors on their line;
 * name, description and variables schema; delete (its templates are left without a layout). */
import { useEffect, useId, useMemo, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import { ConfirmDialog } from '../../ui/ConfirmDialog.tsx';
import { ErrorNotice } from '../../ui/ErrorNotice.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { jsonValue, type Layout } from '../api.ts';
import { JsonField, parseJson, prettyJson } from '../preview/JsonField.tsx';
import { PreviewPane } from '../preview/PreviewPane.tsx';
import { sampleVariables } from '../preview/samples.ts';
import { TemplateTextField } from '../preview/TemplateTextField.tsx';
import { useLivePreview } from '../preview/use-live-preview.ts';

const SAMPLE_MESSAGE = '<h1>A sample message</h1>\n<p>Each template\'s content goes here, in the place of the content placeholder.</p>';

export default function LayoutPage({ id }: { id: string }) {
  const layout = useQuery({
    queryKey: ['messaging', 'layout', id],
    queryFn: ({ signal }) => request<Layout>('GET', `/notify/layouts/${encodeURIComponent(id)}`, { signal }),
  });
  if (layout.error) {
    return (
      <div className="main-pane">
        <header className="page-header"><h1>Layout</h1></header>
        <div className="page-body"><ErrorNotice error={layout.error} onRetry={() => void layout.refetch()} /></div>
      </div>
    );
  }
  if (!layout.data) return <div className="main-pane"><Loading label="Loading the layout" /></div>;
  return <LayoutEditor key={id} layout={{ ...layout.data, variables_schema: jsonValue(layout.data.variables_schema) }} />;
}

function LayoutEditor({ layout }: { layout: Layout }) {
  const ids = useId();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const [name, setName] = useState(layout.name);
  const [description, setDescription] = useState(layout.description ?? '');
  const [text, setText] = useState(layout.content);
  const [schema, setSchema] = useState(prettyJson(layout.variables_schema));
  const [saved, setSaved] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const schemaParsed = parseJson(schema);
  // Samples follow the schema as typed (while it parses).
  const schemaKey = schemaParsed.ok ? JSON.stringify(schemaParsed.value) : 'null';
  const samples = useMemo(() => prettyJson(sampleVariables(JSON.parse(schemaKey))), [schemaKey]);
  const [variablesText, setVariablesText] = useState(samples);
  const [variables, setVariables] = useState<Record<string, unknown>>(() => JSON.parse(samples || '{}') as Record<string, unknown>);
  useEffect(() => { if (saved) { const t = setTimeout(() => setSaved(false), 3000); return () => clearTimeout(t); } }, [saved]);

  function changeVariables(v: string): void {
    setVariablesText(v);
    const parsed = parseJson(v);
    if (parsed.ok && (parsed.value === null || (typeof parsed.value === 'object' && !Array.isArray(parsed.value)))) setVariables((parsed.value ?? {}) as Record<string, unknown>);
  }

  const live = useLivePreview(
    text.trim() === '' ? null : { channel: 'email', layout: text, content: SAMPLE_MESSAGE, variables },
    { layout: text },
  );
  const missingPlaceholder = !text.includes('{{{content}}}');

  const save = useMutation({
    mutationFn: async () => {
      if (!schemaParsed.ok) throw new ApiError(400, [{ message: schemaParsed.message, code: 'INVALID_PAYLOAD', field: 'variables_schema' }]);
      await request('PATCH', `/notify/layouts/${encodeURIComponent(layout.id)}`, {
        body: { name: name.trim(), description: description.trim() || null, content: text, variables_schema: schemaParsed.value },
      });
    },
    onSuccess: async () => {
      setSaved(true);
      await qc.invalidateQueries({ queryKey: ['messaging', 'layout', layout.id] });
      await qc.invalidateQueries({ queryKey: ['messaging', 'layouts'] });
    },
  });
  const fe = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const placed = ['name', 'content', 'variables_schema'];

  return (
    <div className="main-pane">
      <header className="page-header">
        <nav aria-label="Breadcrumb" className="crumbs"><Link href="/layouts">Layouts</Link></nav>
        <h1>{layout.name}</h1>
        <span className="mono muted title-aside">{layout.id}</span>
        <span role="status" className="save-state">{saved ? 'Saved' : ''}</span>
        <button type="button" className="btn btn-danger" onClick={() => setDeleting(true)}>Delete</button>
        <button type="submit" form={`${ids}-form`} className="btn btn-primary" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
      </header>
      <div className="editor-split">
        <form id={`${ids}-form`} className="editor-form" noValidate aria-label="Layout" onSubmit={(e) => { e.preventDefault(); save.mutate(); }}>
          <div className="form-row">
            <div className="field">
              <label htmlFor={`${ids}-name`}>Name</label>
              <input id={`${ids}-name`} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={fe.name ? true : undefined} />
              {fe.name && <span className="field-error">{fe.name}</span>}
            </div>
            <div className="field grow">
              <label htmlFor={`${ids}-description`}>Description</label>
              <input id={`${ids}-description`} value={description} onChange={(e) => setDescription(e.target.value)} />
            </div>
          </div>
          <TemplateTextField id={`${ids}-content`} label="Layout (HTML)" value={text} onChange={setText} errors={live.errors?.layout} serverError={fe.content} required rows={18}
            note={missingPlaceholder ? undefined : <>{'{{{content}}}'} is where each template's message goes; {'{{name}}'} inserts a variable.</>} />
          {missingPlaceholder && <div className="notice notice-warning" role="status"><span>The layout needs {'{{{content}}}'} where the message goes; it cannot be saved without it.</span></div>}
          <JsonField id={`${ids}-schema`} label="Variables (JSON schema)" value={schema} onChange={setSchema} rows={6} error={fe.variables_schema}
            note="Variables the layout itself uses (a brand name, an unsubscribe link): every send through it must give them." />
          {save.error !== null && !Object.keys(fe).some((f) => placed.includes(f)) && <ErrorNotice error={save.error} />}
        </form>
        <aside className="editor-preview" aria-label="Preview">
          <PreviewPane live={live} channel="email" empty="Type the layout to see it rendered." layoutNote="With a sample message." showSubject={false} />
          <JsonField id={`${ids}-variables`} label="Sample variables" value={variablesText} onChange={changeVariables} rows={5}
            note="Only for the preview; made from the variables schema."
            actions={<button type="button" className="btn btn-small btn-ghost" onClick={() => changeVariables(samples)} disabled={variablesText === samples}>Reset samples</button>} />
        </aside>
      </div>
      {deleting && (
        <ConfirmDialog title={`Delete ${layout.name}?`} confirmLabel="Delete layout" typeToConfirm={layout.id} onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await request('DELETE', `/notify/layouts/${encodeURIComponent(layout.id)}`);
            await qc.invalidateQueries({ queryKey: ['messaging', 'layouts'] });
            navigate('/layouts');
          }}>
          <p>Templates that use this layout are left without one: their email goes out unwrapped.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
