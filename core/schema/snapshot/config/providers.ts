/** Sections `storage_providers` and `auth_providers` (the runtime records of svc_extension_settings), by name, through
 * core/storage/providers.ts and core/auth/sso/providers.ts. Secrets never leave the database: a snapshot's `value`
 * holds the other settings and `secrets` only names the secret settings that are set. On apply an existing provider
 * keeps its stored secrets (a secret no longer named is cleared); a new provider that needs a secret is refused with
 * a 400 naming it, since no snapshot can carry it: create the provider with its secret first, then apply. */
import { MASK as AUTH_MASK, SECRET_FIELDS as AUTH_SECRETS } from '../../../auth/sso/provider-secrets.ts';
import { addAuthProvider, changeAuthProvider, listAuthProviders, removeAuthProvider } from '../../../auth/sso/providers.ts';
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { SENSITIVE_FIELDS as STORAGE_SECRETS, MASK as STORAGE_MASK } from '../../../storage/provider-config.ts';
import { addStorageProvider, changeStorageProvider, listProviders, removeStorageProvider } from '../../../storage/providers.ts';
import { isPlainObject } from '../../ddl/names.ts';
import { byText, need, onlyFields } from './refs.ts';
import type { ConfigSection, Row } from './types.ts';

interface ProviderOwner {
  section: string;
  label: string;
  route: string;
  secrets: readonly string[];
  mask: string;
  list(ctx: ServiceContext): Promise<{ id: number; name: string; value: Record<string, unknown> }[]>;
  add(ctx: ServiceContext, body: Row): Promise<unknown>;
  change(ctx: ServiceContext, id: number, value: Row): Promise<void>;
  remove(ctx: ServiceContext, id: number): Promise<unknown>;
}

function providerSection(o: ProviderOwner): ConfigSection {
  const find = async (ctx: ServiceContext, name: unknown) => (await o.list(ctx)).find((p) => p.name === name);
  return {
    name: o.section,
    keyFields: ['name'],
    async read(ctx) {
      return (await o.list(ctx)).map((p) => {
        // The record as the API shows it (secrets masked), with the masked settings taken out and only named.
        const value: Row = {};
        const secrets: string[] = [];
        for (const [k, v] of Object.entries(p.value)) {
          if (o.secrets.includes(k)) {
            if (v !== null && v !== undefined) secrets.push(k);
          } else value[k] = v;
        }
        return { name: p.name, value, secrets: secrets.sort() };
      }).sort((a, b) => byText(a.name, b.name));
    },
    check(row, where) {
      onlyFields(row, ['name', 'value', 'secrets'], where);
      need(row, 'name', where, 'string');
      need(row, 'value', where, 'object');
      const secrets = row.secrets ?? [];
      if (!Array.isArray(secrets) || secrets.some((s) => typeof s !== 'string' || !o.secrets.includes(s))) {
        throw new InvalidPayloadError(`${where}.secrets must list names of secret settings (${o.secrets.join(', ')}), never their values.`);
      }
      for (const k of o.secrets) {
        if (isPlainObject(row.value) && row.value[k] !== undefined) throw new InvalidPayloadError(`${where}.value.${k} is a secret: a snapshot names it in "secrets" and never holds its value.`);
      }
    },
    async create(ctx, row) {
      const secrets = (row.secrets as string[] | undefined) ?? [];
      if (secrets.length) {
        throw new InvalidPayloadError(
          `${o.label} "${String(row.name)}" needs its secret ${secrets.map((s) => `"value.${s}"`).join(' and ')}, which a snapshot never carries. `
          + `Create it with ${secrets.length > 1 ? 'them' : 'it'} first (POST ${o.route}), then apply again.`,
          { section: o.section, name: row.name, secrets },
        );
      }
      await o.add(ctx, { name: row.name, value: row.value });
    },
    async update(ctx, from, to) {
      const found = await find(ctx, from.name);
      if (!found) return;
      const keep = (to.secrets as string[] | undefined) ?? [];
      const value: Row = { ...(to.value as Row) };
      // Settings the snapshot no longer has are cleared (a PATCH merges, so they are sent as null).
      for (const k of Object.keys(from.value as Row)) if (!(k in value)) value[k] = null;
      for (const k of o.secrets) {
        if (!keep.includes(k)) {
          if (found.value[k] !== undefined && found.value[k] !== null) value[k] = null;
        } else if (found.value[k] === undefined || found.value[k] === null) {
          throw new InvalidPayloadError(`${o.label} "${String(to.name)}" has no stored "value.${k}" to keep: set it (PATCH ${o.route}/${found.id}), then apply again.`);
        } else value[k] = o.mask;
      }
      await o.change(ctx, found.id, value);
    },
    async remove(ctx, row) {
      const found = await find(ctx, row.name);
      if (found) await o.remove(ctx, found.id);
    },
    describeRemoval: (row) => `Deletes the ${o.label.toLowerCase()} "${String(row.name)}".`,
  };
}

export const storageProviders = providerSection({
  section: 'storage_providers', label: 'Storage provider', route: '/system/storage-providers', secrets: STORAGE_SECRETS, mask: STORAGE_MASK,
  list: listProviders,
  add: (ctx, body) => addStorageProvider(ctx.config, ctx, body),
  change: (ctx, id, value) => changeStorageProvider(ctx.config, ctx, id, value),
  remove: removeStorageProvider,
});

export const authProviders = providerSection({
  section: 'auth_providers', label: 'Auth provider', route: '/system/auth-providers', secrets: AUTH_SECRETS, mask: AUTH_MASK,
  list: listAuthProviders,
  add: (ctx, body) => addAuthProvider(ctx.config, ctx, body),
  change: (ctx, id, value) => changeAuthProvider(ctx.config, ctx, id, value),
  remove: removeAuthProvider,
});
