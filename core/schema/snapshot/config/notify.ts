/** Sections `notify_layouts` and `notify_templates` (by their slug ids, which clients choose and which are the same on
 * every database) and `notify_contents` (by template id, provider name and locale), through core/notify's services,
 * which run inside the caller's transaction. Notification providers themselves hold credentials and are not part of
 * a snapshot: a content names its provider, which must exist on the target (the same name). */
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { createContent, deleteContent, updateContent } from '../../../notify/contents.ts';
import { createLayout, deleteLayout, updateLayout } from '../../../notify/layouts.ts';
import { listProviders } from '../../../notify/providers-admin.ts';
import { createTemplate, deleteTemplate, updateTemplate } from '../../../notify/templates.ts';
import { allRows, byText, changed, need, onlyFields, pick } from './refs.ts';
import type { ConfigSection, Row } from './types.ts';

const LAYOUT_FIELDS = ['id', 'name', 'description', 'content', 'variables_schema'] as const;

export const notifyLayouts: ConfigSection = {
  name: 'notify_layouts',
  keyFields: ['id'],
  async read(ctx) {
    return (await allRows(ctx, 'svc_notify_layouts', [...LAYOUT_FIELDS], ['id'])).map((r) => pick(r, LAYOUT_FIELDS));
  },
  check(row, where) {
    onlyFields(row, LAYOUT_FIELDS, where);
    need(row, 'id', where, 'string');
  },
  async create(ctx, row) {
    await createLayout(ctx, row);
  },
  async update(ctx, from, to) {
    await updateLayout(ctx, String(to.id), pick(to, changed(from, to, LAYOUT_FIELDS.filter((f) => f !== 'id'))));
  },
  async remove(ctx, row) {
    await deleteLayout(ctx, String(row.id));
  },
  describeRemoval: (row) => `Deletes the notification layout "${String(row.id)}" (its templates lose their layout).`,
};

// is_system is read-only over the API: a system template is matched like any other, never created as one.
const TEMPLATE_FIELDS = ['id', 'name', 'description', 'channels', 'cc_admin', 'variables_schema', 'layout_id', 'status'] as const;

export const notifyTemplates: ConfigSection = {
  name: 'notify_templates',
  keyFields: ['id'],
  async read(ctx) {
    return (await allRows(ctx, 'svc_notify_templates', [...TEMPLATE_FIELDS], ['id'])).map((r) => pick(r, TEMPLATE_FIELDS));
  },
  check(row, where) {
    onlyFields(row, TEMPLATE_FIELDS, where);
    need(row, 'id', where, 'string');
  },
  async create(ctx, row) {
    await createTemplate(ctx, row);
  },
  async update(ctx, from, to) {
    await updateTemplate(ctx, String(to.id), pick(to, changed(from, to, TEMPLATE_FIELDS.filter((f) => f !== 'id'))));
  },
  async remove(ctx, row) {
    await deleteTemplate(ctx, String(row.id));
  },
  describeRemoval: (row) => `Deletes the notification template "${String(row.id)}" with its contents.`,
};

const CONTENT_VALUES = ['subject', 'content', 'metadata', 'active'] as const;

async function providerNames(ctx: ServiceContext): Promise<Map<number, string>> {
  const { data } = await listProviders(ctx, { query: { fields: ['id', 'name'], sort: ['id'], limit: -1 } });
  return new Map(data.map((p) => [Number(p.id), String(p.name)]));
}

async function providerIdOf(ctx: ServiceContext, name: unknown, what: string): Promise<number> {
  const matches = [...(await providerNames(ctx))].filter(([, n]) => n === name);
  if (matches.length !== 1) {
    throw new InvalidPayloadError(`${what}: ${matches.length ? 'several notification providers are' : 'no notification provider is'} named "${String(name)}" (providers hold credentials and are set up on each instance).`);
  }
  return matches[0][0];
}

async function contentRows(ctx: ServiceContext): Promise<{ id: number; row: Row }[]> {
  const rows = await allRows(ctx, 'svc_notify_template_contents', ['id', 'template_id', 'provider_id', 'locale', ...CONTENT_VALUES], ['id']);
  const providers = await providerNames(ctx);
  return rows.map((r) => ({
    id: Number(r.id),
    row: { template_id: r.template_id, provider: providers.get(Number(r.provider_id)) ?? null, locale: r.locale, ...pick(r, CONTENT_VALUES) },
  }));
}

const sameContent = (a: Row, b: Row): boolean => a.template_id === b.template_id && a.provider === b.provider && a.locale === b.locale;
const contentLabel = (r: Row): string => `content of the template "${String(r.template_id)}" for ${String(r.provider)} (${String(r.locale)})`;

export const notifyContents: ConfigSection = {
  name: 'notify_contents',
  keyFields: ['template_id', 'provider', 'locale'],
  async read(ctx) {
    return (await contentRows(ctx)).map((r) => r.row)
      .sort((a, b) => byText(String(a.template_id), String(b.template_id)) || byText(String(a.provider), String(b.provider)) || byText(String(a.locale), String(b.locale)));
  },
  check(row, where) {
    onlyFields(row, ['template_id', 'provider', 'locale', ...CONTENT_VALUES], where);
    for (const f of ['template_id', 'provider', 'locale']) need(row, f, where, 'string');
  },
  async create(ctx, row) {
    const providerId = await providerIdOf(ctx, row.provider, `The ${contentLabel(row)}`);
    await createContent(ctx, String(row.template_id), { provider_id: providerId, locale: row.locale, ...pick(row, CONTENT_VALUES) });
  },
  async update(ctx, from, to) {
    const found = (await contentRows(ctx)).find((r) => sameContent(r.row, from));
    if (found) await updateContent(ctx, String(found.id), pick(to, changed(from, to, CONTENT_VALUES)));
  },
  async remove(ctx, row) {
    for (const r of await contentRows(ctx)) if (sameContent(r.row, row)) await deleteContent(ctx, String(r.id));
  },
  describeRemoval: (row) => `Deletes the ${contentLabel(row)}.`,
};
