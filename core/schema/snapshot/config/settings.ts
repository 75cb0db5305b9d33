/** Sections `settings` (the svc_settings row), `asset_presets` (settings.storage_asset_presets, by key) and `presets`
 * (bookmarks and role-wide or global presets, by collection + bookmark + role name + user email), written through
 * core/system (changeSettings, addPreset ...).
 *
 * Left out of `settings`, as instance-specific or secret: the id, the ids of files and folders (project_logo,
 * public_foreground, public_background, public_favicon, storage_default_folder: files are content, not
 * configuration) and mapbox_key (a token). Roles in settings (public_role, public_registration_role) are named. A
 * user's own presets (no bookmark) are the user's state, not configuration, and are left out too. */
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { readSettings, changeSettings } from '../../../system/settings.ts';
import { addPreset, changePreset, removePreset } from '../../../system/presets.ts';
import { isPlainObject } from '../../ddl/names.ts';
import { allRows, byText, changed, emailsOf, names, need, onlyFields, pick, userIdOf } from './refs.ts';
import type { ConfigSection, Row } from './types.ts';

export const SETTINGS_FIELDS = [
  'project_name', 'project_url', 'project_color', 'project_descriptor', 'public_note', 'custom_css', 'default_language',
  'default_appearance', 'default_theme_light', 'default_theme_dark', 'module_bar', 'basemaps', 'custom_aspect_ratios',
  'auth_login_attempts', 'auth_password_policy', 'storage_asset_transform',
  'public_registration', 'public_registration_verify_email', 'public_registration_role', 'public_registration_email_filter', 'public_role',
] as const;
const ROLE_REFS = ['public_role', 'public_registration_role'] as const;

async function settingsRow(ctx: ServiceContext, fields: readonly string[]): Promise<Row> {
  return (JSON.parse(await readSettings(ctx, { query: { fields: [...fields] } })) as { data: Row }).data;
}

export const settings: ConfigSection = {
  name: 'settings',
  keyFields: [],
  single: true,
  async read(ctx) {
    const row = await settingsRow(ctx, SETTINGS_FIELDS);
    const roleNames = await names(ctx, 'svc_roles');
    const out = pick(row, SETTINGS_FIELDS);
    for (const f of ROLE_REFS) out[f] = roleNames.nameOf(row[f]);
    return [out];
  },
  check(row, where) {
    onlyFields(row, SETTINGS_FIELDS, where);
    for (const f of ROLE_REFS) need(row, f, where, 'nullable-string');
  },
  async create() {
    throw new InvalidPayloadError('The settings can be changed, not created.');
  },
  async update(ctx, from, to) {
    const patch = pick(to, changed(from, to, SETTINGS_FIELDS.filter((f) => f in to)));
    const roleNames = await names(ctx, 'svc_roles');
    for (const f of ROLE_REFS) if (f in patch) patch[f] = roleNames.idOf(patch[f], `settings.${f}`);
    if (Object.keys(patch).length) await changeSettings(ctx, patch);
  },
  async remove() {},
};

async function assetPresetList(ctx: ServiceContext): Promise<Row[]> {
  const list = (await settingsRow(ctx, ['storage_asset_presets'])).storage_asset_presets;
  return Array.isArray(list) ? list.filter(isPlainObject) : [];
}

async function writeAssetPresets(ctx: ServiceContext, change: (list: Row[]) => Row[]): Promise<void> {
  const next = change(await assetPresetList(ctx));
  await changeSettings(ctx, { storage_asset_presets: next.length ? next : null });
}

export const assetPresets: ConfigSection = {
  name: 'asset_presets',
  keyFields: ['key'],
  async read(ctx) {
    return (await assetPresetList(ctx)).sort((a, b) => byText(String(a.key), String(b.key)));
  },
  check(row, where) {
    need(row, 'key', where, 'string');
  },
  async create(ctx, row) {
    await writeAssetPresets(ctx, (list) => [...list, row]);
  },
  async update(ctx, _from, to) {
    await writeAssetPresets(ctx, (list) => list.map((p) => (p.key === to.key ? to : p)));
  },
  async remove(ctx, row) {
    await writeAssetPresets(ctx, (list) => list.filter((p) => p.key !== row.key));
  },
  describeRemoval: (row) => `Deletes the asset preset "${String(row.key)}" (asset URLs using it stop working).`,
};

const PRESET_FIELDS = ['collection', 'bookmark', 'role', 'user', 'search', 'layout', 'layout_query', 'layout_options', 'refresh_interval', 'filter', 'filters', 'icon', 'color'] as const;
const PRESET_VALUES = PRESET_FIELDS.filter((f) => !['collection', 'bookmark', 'role', 'user'].includes(f));

async function presetRows(ctx: ServiceContext): Promise<{ id: number; row: Row }[]> {
  const rows = (await allRows(ctx, 'svc_presets', ['id', ...PRESET_FIELDS], ['id'])).filter((r) => r.bookmark !== null || r.user === null);
  const [roleNames, emails] = await Promise.all([names(ctx, 'svc_roles'), emailsOf(ctx, rows.map((r) => r.user))]);
  return rows.map((r) => ({
    id: Number(r.id),
    row: { ...pick(r, PRESET_FIELDS), role: roleNames.nameOf(r.role), user: r.user ? emails.get(String(r.user)) ?? null : null },
  }));
}

const samePreset = (a: Row, b: Row): boolean => ['collection', 'bookmark', 'role', 'user'].every((f) => (a[f] ?? null) === (b[f] ?? null));
const presetLabel = (r: Row): string => `${r.bookmark ? `bookmark "${String(r.bookmark)}"` : 'preset'} of "${String(r.collection)}"${r.role ? ` for the role "${String(r.role)}"` : ''}${r.user ? ` for ${String(r.user)}` : ''}`;

async function presetData(ctx: ServiceContext, row: Row, fields: readonly string[]): Promise<Row> {
  const out = pick(row, fields);
  if ('role' in out) out.role = (await names(ctx, 'svc_roles')).idOf(row.role, `The ${presetLabel(row)}`);
  if ('user' in out) out.user = await userIdOf(ctx, row.user, `The ${presetLabel(row)}`);
  return out;
}

export const presets: ConfigSection = {
  name: 'presets',
  keyFields: ['collection', 'bookmark', 'role', 'user'],
  async read(ctx) {
    const rows = (await presetRows(ctx)).map((r) => r.row);
    return rows.sort((a, b) => byText(String(a.collection), String(b.collection)) || byText(String(a.bookmark ?? ''), String(b.bookmark ?? ''))
      || byText(String(a.role ?? ''), String(b.role ?? '')) || byText(String(a.user ?? ''), String(b.user ?? '')));
  },
  check(row, where) {
    onlyFields(row, PRESET_FIELDS, where);
    for (const f of ['collection', 'bookmark', 'role', 'user']) need(row, f, where, 'nullable-string');
    if (row.user && !row.bookmark) throw new InvalidPayloadError(`${where}: a user's own preset (no bookmark) is not configuration; only bookmarks may name a user.`);
  },
  async create(ctx, row) {
    await addPreset(ctx, await presetData(ctx, row, PRESET_FIELDS));
  },
  async update(ctx, from, to) {
    const found = (await presetRows(ctx)).find((r) => samePreset(r.row, from));
    if (found) await changePreset(ctx, found.id, await presetData(ctx, to, changed(from, to, PRESET_VALUES)));
  },
  async remove(ctx, row) {
    for (const r of await presetRows(ctx)) if (samePreset(r.row, row)) await removePreset(ctx, r.id);
  },
  describeRemoval: (row) => `Deletes the ${presetLabel(row)}.`,
};
