/** The MCP server's settings: one record of svc_extension_settings with extension_key `system_mcp_settings` (SPEC.md >
 * svc_extension_settings), administered at GET/PATCH /system/mcp-settings (admins only), as the storage and sign-on
 * providers are records of their own keys. MCP_ENABLED in the environment turns the server on as well, whatever the
 * record says. The record is read on each MCP request (one indexed row): nothing is cached, so a change is seen by
 * every process at once. */
import type { Config } from '../config.ts';
import type { ServiceContext } from '../context.ts';
import type { Executor } from '../db/database.ts';
import { inTransaction } from '../db/database.ts';
import { ForbiddenError, InvalidPayloadError } from '../errors.ts';
import { insertSetting, settingByName, settingValue, updateSettingValue } from '../extensions/settings-table.ts';
import { isPlainObject } from '../plain-object.ts';
import type { SchemaOverview } from '../schema/types.ts';

export const MCP_SETTINGS_KEY = 'system_mcp_settings';
/** The record's name (unique within the key): the settings are a singleton. */
const RECORD_NAME = 'mcp';
const MAX_PROMPT_LENGTH = 20_000;

export interface McpSettings {
  /** Serve /mcp (default off). */
  enabled: boolean;
  /** The delete_item tool may delete (default off). */
  allow_deletes: boolean;
  /** Agents' creates and updates become content versions (drafts) only; no direct writes, no promote (default on). */
  drafts_only: boolean;
  /** Instructions handed to agents at initialization and by the system_prompt tool (null: the built-in ones). */
  system_prompt: string | null;
  /** A collection whose items are offered as MCP prompts (null: none). */
  prompts_collection: string | null;
}

/** The settings as the admin API shows them: the stored ones, and whether MCP_ENABLED turns the server on. */
export interface McpSettingsView extends McpSettings {
  enabled_by_env: boolean;
}

export const MCP_DEFAULTS: Readonly<McpSettings> = {
  enabled: false, allow_deletes: false, drafts_only: true, system_prompt: null, prompts_collection: null,
};

const FIELDS = Object.keys(MCP_DEFAULTS) as (keyof McpSettings)[];

/** A stored value over the defaults; a value of the wrong type (written around the API) falls back to its default. */
function fromStored(value: unknown): McpSettings {
  const v = value === null || value === undefined ? {} : settingValue(value);
  const bool = (k: 'enabled' | 'allow_deletes' | 'drafts_only') => (typeof v[k] === 'boolean' ? v[k] as boolean : MCP_DEFAULTS[k]);
  const text = (k: 'system_prompt' | 'prompts_collection') => (typeof v[k] === 'string' && v[k] !== '' ? v[k] as string : null);
  return {
    enabled: bool('enabled'), allow_deletes: bool('allow_deletes'), drafts_only: bool('drafts_only'),
    system_prompt: text('system_prompt'), prompts_collection: text('prompts_collection'),
  };
}

async function stored(db: Executor, opts: { lock?: boolean } = {}): Promise<{ id: number | null; settings: McpSettings }> {
  const row = await settingByName(db, MCP_SETTINGS_KEY, RECORD_NAME, opts);
  return { id: row?.id ?? null, settings: fromStored(row?.value) };
}

/** The settings an MCP request runs under: `enabled` is true when the record or MCP_ENABLED says so. */
export async function effectiveMcpSettings(db: Executor, config: Config): Promise<McpSettings> {
  const { settings } = await stored(db);
  return config.mcp.enabled ? { ...settings, enabled: true } : settings;
}

function requireAdmin(ctx: ServiceContext): void {
  if (!ctx.accountability.admin) throw new ForbiddenError();
}

function view(settings: McpSettings, config: Config): McpSettingsView {
  return { ...settings, enabled_by_env: config.mcp.enabled };
}

export async function readMcpSettings(ctx: ServiceContext): Promise<McpSettingsView> {
  requireAdmin(ctx);
  return view((await stored(ctx.db)).settings, ctx.config);
}

function invalid(field: string, message: string): InvalidPayloadError {
  return new InvalidPayloadError(`Invalid payload. ${message}`, { field });
}

/** A prompts collection must be a user collection with a table and the fields a prompt is read from, `name` and
 * `messages` (`description` and `system_prompt` are optional; core/mcp/prompts.ts). Its items are read with the
 * caller's permissions. */
function checkPromptsCollection(schema: SchemaOverview, name: string): void {
  const c = Object.hasOwn(schema.collections, name) ? schema.collections[name] : undefined;
  if (!c || c.folder || c.system || !c.primary) throw invalid('prompts_collection', `"${name.slice(0, 64)}" is not a collection of items.`);
  const missing = ['name', 'messages'].filter((f) => !Object.hasOwn(c.fields, f));
  if (missing.length) throw invalid('prompts_collection', `"${name}" has no field ${missing.map((f) => `"${f}"`).join(' or ')}: a prompt is read from name, description, system_prompt and messages.`);
}

/** The change a PATCH body asks for: known fields only, each of its type. */
function parseChange(schema: SchemaOverview, body: unknown): Partial<McpSettings> {
  if (!isPlainObject(body)) throw new InvalidPayloadError('Invalid payload. Body must be an object.');
  const change: Partial<McpSettings> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'enabled_by_env') throw invalid(k, '"enabled_by_env" is read-only: it shows MCP_ENABLED of the environment.');
    if (!(FIELDS as string[]).includes(k)) throw invalid(k, `"${k.slice(0, 64)}" is not an MCP setting (${FIELDS.join(', ')}).`);
    if (k === 'enabled' || k === 'allow_deletes' || k === 'drafts_only') {
      if (typeof v !== 'boolean') throw invalid(k, `"${k}" must be true or false.`);
      change[k] = v;
    } else if (k === 'system_prompt') {
      if (v !== null && (typeof v !== 'string' || v.length > MAX_PROMPT_LENGTH)) throw invalid(k, `"${k}" must be null or a text of at most ${MAX_PROMPT_LENGTH} characters.`);
      change.system_prompt = v === '' ? null : v as string | null;
    } else {
      if (v !== null && typeof v !== 'string') throw invalid(k, `"${k}" must be null or a collection name.`);
      if (typeof v === 'string' && v !== '') checkPromptsCollection(schema, v);
      change.prompts_collection = v === '' ? null : v as string | null;
    }
  }
  return change;
}

/** PATCH /system/mcp-settings: merges the fields sent into the record (created on the first change). */
export async function updateMcpSettings(ctx: ServiceContext, body: unknown): Promise<McpSettingsView> {
  requireAdmin(ctx);
  const change = parseChange(ctx.schema, body);
  const next = await inTransaction(ctx.db, async (trx) => {
    const current = await stored(trx, { lock: true });
    const merged: McpSettings = { ...current.settings, ...change };
    const value = { ...merged } as Record<string, unknown>;
    if (current.id === null) await insertSetting(trx, MCP_SETTINGS_KEY, RECORD_NAME, value);
    else await updateSettingValue(trx, current.id, value);
    return merged;
  });
  return view(next, ctx.config);
}
