/** Prompts from a collection (the settings' prompts_collection), as Directus offers them: each item is a prompt with
 * `name`, `description`, an optional `system_prompt` and `messages` (a JSON array of {role: user|assistant, text}).
 * `{{variable}}` placeholders in the texts become the prompt's arguments. Items are read with the caller's
 * permissions, so an agent is offered the prompts its user may read. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { GetPromptRequestSchema, ListPromptsRequestSchema, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { InvalidPayloadError } from '../errors.ts';
import { readItems } from '../items/read.ts';
import type { Filter } from '../query/types.ts';
import type { McpCall } from './call.ts';
import { boundedQuery } from './limits.ts';
import { asProtocol } from './results.ts';

interface PromptItem { name: string; description: string | null; system_prompt: string | null; messages: { role: 'user' | 'assistant'; text: string }[] }

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]{0,63})\s*\}\}/g;

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function promptItem(row: Record<string, unknown>): PromptItem | null {
  const name = text(row.name);
  if (!name) return null;
  const raw = typeof row.messages === 'string' ? safeJson(row.messages) : row.messages;
  const messages: PromptItem['messages'] = [];
  for (const m of Array.isArray(raw) ? raw : []) {
    const role = (m as Record<string, unknown>)?.role;
    const body = text((m as Record<string, unknown>)?.text);
    if ((role === 'user' || role === 'assistant') && body) messages.push({ role, text: body });
  }
  return { name, description: text(row.description), system_prompt: text(row.system_prompt), messages };
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

async function promptItems(call: McpCall, collection: string, filter?: Filter): Promise<PromptItem[]> {
  const { ctx } = call;
  const { query } = boundedQuery(ctx.config, { fields: ['*'], sort: ['name'], ...(filter ? { filter } : {}) });
  const { data } = JSON.parse(await readItems(ctx, collection, query)) as { data: Record<string, unknown>[] };
  return data.map(promptItem).filter((p): p is PromptItem => p !== null);
}

function argumentsOf(p: PromptItem): string[] {
  const names = new Set<string>();
  for (const t of [p.system_prompt ?? '', ...p.messages.map((m) => m.text)]) for (const m of t.matchAll(PLACEHOLDER)) names.add(m[1]);
  return [...names];
}

function render(template: string, args: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (_, name: string) => args[name] ?? '');
}

function listed(p: PromptItem): Prompt {
  return {
    name: p.name,
    ...(p.description ? { description: p.description } : {}),
    arguments: argumentsOf(p).map((name) => ({ name, description: `Value for ${name}`, required: false })),
  };
}

function rendered(p: PromptItem, args: Record<string, string>): GetPromptResult {
  const messages: GetPromptResult['messages'] = [];
  if (p.system_prompt) messages.push({ role: 'assistant', content: { type: 'text', text: render(p.system_prompt, args) } });
  for (const m of p.messages) messages.push({ role: m.role, content: { type: 'text', text: render(m.text, args) } });
  return { ...(p.description ? { description: p.description } : {}), messages };
}

/** Offers the prompts of `collection` (prompts/list, prompts/get). Call before the server connects. */
export function registerCollectionPrompts(server: McpServer, call: McpCall, collection: string): void {
  const config = call.ctx.config;
  const low = server.server;
  low.registerCapabilities({ prompts: {} });
  low.setRequestHandler(ListPromptsRequestSchema, () => asProtocol(config, async () => ({ prompts: (await promptItems(call, collection)).map(listed) })));
  low.setRequestHandler(GetPromptRequestSchema, (request) => asProtocol(config, async () => {
    const [p] = await promptItems(call, collection, { name: { _eq: request.params.name } });
    if (!p) throw new InvalidPayloadError(`Invalid payload. There is no prompt "${request.params.name.slice(0, 64)}".`);
    return rendered(p, request.params.arguments ?? {});
  }));
}
