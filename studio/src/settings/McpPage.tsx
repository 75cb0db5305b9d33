/** /settings/ai: the MCP server AI agents connect to (GET/PATCH /system/mcp-settings, docs/mcp.md): whether /mcp
 * answers, whether agents' writes become drafts for review, whether they may delete, the instructions they are
 * handed and the collection their prompts come from; and the address an agent is given. */
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { request } from '../api/client.ts';
import { useUnsavedGuard } from '../content/item/unsaved.tsx';
import { useCollections } from '../content/schema.ts';
import { CheckField, SelectField } from '../ui/form.tsx';
import { useFieldsForm } from './data.ts';
import { cardState, SettingsCard } from './SettingsCard.tsx';
import { SettingsPage } from './SettingsPage.tsx';

interface McpSettings {
  enabled: boolean;
  allow_deletes: boolean;
  drafts_only: boolean;
  system_prompt: string | null;
  prompts_collection: string | null;
  /** MCP_ENABLED in the server's environment: on whatever `enabled` says. */
  enabled_by_env: boolean;
}

const mcpQuery = queryOptions({
  queryKey: ['settings', 'mcp'],
  queryFn: ({ signal }) => request<McpSettings>('GET', '/system/mcp-settings', { signal }),
});

export default function McpPage() {
  const settings = useQuery(mcpQuery);
  return <SettingsPage title="AI agents (MCP)" record={settings} loading="Loading the MCP settings">{(stored) => <Forms stored={stored} />}</SettingsPage>;
}

function Forms({ stored }: { stored: McpSettings }) {
  const client = useQueryClient();
  const write = async (body: Record<string, unknown>): Promise<void> => {
    client.setQueryData(mcpQuery.queryKey, await request<McpSettings>('PATCH', '/system/mcp-settings', { body }));
  };
  const access = useFieldsForm(stored, ['enabled', 'drafts_only', 'allow_deletes'] as const, write);
  const guidance = useFieldsForm(stored, ['system_prompt', 'prompts_collection'] as const, write);
  const guard = useUnsavedGuard(access.dirty || guidance.dirty, 'Some MCP settings have changes that are not saved. They will be lost if you leave.');
  const collections = useCollections();
  const choices = (collections.data ?? []).filter((c) => c.schema !== null && !c.collection.startsWith('svc_'))
    .sort((a, b) => a.collection.localeCompare(b.collection));
  const promptId = useId();
  const endpoint = `${location.origin}/mcp`;
  // What the server does now, not what is being edited.
  const on = stored.enabled_by_env || stored.enabled;

  return (
    <div className="settings-cards">
      <SettingsCard title="Access" description="Whether agents may connect, and what their writes do." {...cardState(access)} onSave={() => void access.save()}>
        <CheckField label="Serve the MCP endpoint" checked={stored.enabled_by_env || access.value('enabled')} disabled={stored.enabled_by_env}
          onChange={(v) => access.set('enabled', v)}
          note={stored.enabled_by_env ? 'MCP_ENABLED in the server’s environment turns it on, whatever is set here.'
            : 'Off: the endpoint refuses every agent (403).'} />
        <CheckField label="Agents’ creates and updates become drafts for review" checked={access.value('drafts_only')} onChange={(v) => access.set('drafts_only', v)}
          note="Off: an agent whose user may write changes items directly and may promote drafts." />
        <CheckField label="Agents may delete items" checked={access.value('allow_deletes')} onChange={(v) => access.set('allow_deletes', v)}
          note="Only where the agent’s user may delete too." />
      </SettingsCard>

      <SettingsCard title="Guidance" description="What agents are told when they connect." {...cardState(guidance)} onSave={() => void guidance.save()}>
        <div className="field form-field">
          <label htmlFor={promptId}>Instructions</label>
          <textarea id={promptId} rows={6} value={guidance.value('system_prompt') ?? ''} maxLength={20_000}
            onChange={(e) => guidance.set('system_prompt', e.target.value || null)} aria-describedby={`${promptId}-note${guidance.errors.system_prompt ? ` ${promptId}-error` : ''}`}
            aria-invalid={guidance.errors.system_prompt ? true : undefined} />
          <p className="field-note" id={`${promptId}-note`}>Handed to every agent at the start. Empty: the built-in instructions (what the tools do, that writes are drafts).</p>
          {guidance.errors.system_prompt && <p className="field-error" id={`${promptId}-error`}>{guidance.errors.system_prompt}</p>}
        </div>
        <SelectField label="Prompts collection" value={guidance.value('prompts_collection') ?? ''} onChange={(v) => guidance.set('prompts_collection', v || null)}
          error={guidance.errors.prompts_collection} note="Each of its items (name, description, messages) is offered to agents as a prompt.">
          <option value="">None</option>
          {choices.map((c) => <option key={c.collection} value={c.collection}>{c.collection}</option>)}
        </SelectField>
      </SettingsCard>

      <section className="settings-card wide" aria-labelledby={`${promptId}-connect`}>
        <div className="settings-card-head">
          <h2 id={`${promptId}-connect`}>Connecting an agent</h2>
          <p className="field-note">{on ? 'The endpoint answers.' : 'The endpoint is off: turn it on under Access first.'}</p>
        </div>
        <div className="settings-card-body">
          <dl className="mcp-connect">
            <dt>Address</dt>
            <dd><code>{endpoint}</code></dd>
            <dt>Credential</dt>
            <dd>A user’s token as <code>Authorization: Bearer …</code>. The agent reads and writes with that user’s permissions; give it a user of its own with a role that fits.</dd>
          </dl>
        </div>
      </section>
      {guard.dialog}
    </div>
  );
}
