/** The permissions an app_access caller has without any permission record: Directus 11's
 * appAccessMinimalPermissions, with svc_ names. Each applies to a (collection, action) only when none of the
 * caller's policies has a record for it (an explicit record replaces the built-in one, it does not widen it).
 *
 * | collection         | action | rows                                              | fields  |
 * |--------------------|--------|---------------------------------------------------|---------|
 * | svc_collections    | read   | all (shared)                                      | all     |
 * | svc_fields         | read   | all (shared)                                      | all     |
 * | svc_relations      | read   | all (shared)                                      | all     |
 * | svc_settings       | read   | all (shared)                                      | all     |
 * | svc_translations   | read   | all (shared)                                      | all     |
 * | svc_activity       | read   | own (user = $CURRENT_USER)                        | all     |
 * | svc_notifications  | read   | own (recipient = $CURRENT_USER)                   | all     |
 * | svc_presets        | read   | own, or global for one of $CURRENT_ROLES or none  | all     |
 * | svc_presets        | create | validation: user = $CURRENT_USER (preset: same)   | all     |
 * | svc_shares         | read   | own (user_created = $CURRENT_USER)                | all     |
 * | svc_users          | read   | own row (id = $CURRENT_USER)                      | limited |
 *
 * svc_users' limited list leaves out password and tfa_secret (Directus lists them concealed; svc_users has no
 * conceal special here, so they are not listed at all).
 * | svc_roles          | read   | id in $CURRENT_ROLES                              | all     |
 * | svc_policies       | read   | id in $CURRENT_POLICIES                           | all     |
 * | svc_access         | read   | user = $CURRENT_USER or role in $CURRENT_ROLES    | all     |
 * | svc_permissions    | read   | policy in $CURRENT_POLICIES                       | all     |
 *
 * Deviation: Directus also grants update/delete of own presets and update of own notifications' status,
 * guarded by their row filter. Here row filters are enforced on read only (SPEC.md rule 5), so such a grant
 * would reach every user's rows; those writes need an explicit permission instead, except an app user's own presets,
 * which core/system/own-presets.ts lets them change and remove after checking that every key is theirs, and the
 * status (inbox, archived) of their own notifications (core/system/own-notifications.ts, the same kind of check). */
import type { Filter } from '../query/types.ts';
import type { PermissionAction, ResolvedPermission } from './permissions.ts';
import { OWN_ROWS } from './user-scoped.ts';

const SELF_USER_FIELDS = [
  'id', 'first_name', 'last_name', 'last_page', 'email', 'location', 'title', 'description', 'tags', 'avatar',
  'language', 'appearance', 'theme', 'tfa_enabled', 'status', 'role', 'provider', 'external_identifier',
  'email_notifications', 'last_access',
];

function grant(filter: Filter | null, opts: { fields?: string[]; validation?: Filter; presets?: Record<string, unknown> } = {}): ResolvedPermission {
  return Object.freeze({
    filter,
    fields: opts.fields ? new Set(opts.fields) : null,
    validation: opts.validation ?? null,
    presets: opts.presets ?? null,
  });
}

const SHARED = ['svc_collections', 'svc_fields', 'svc_relations', 'svc_settings', 'svc_translations'];

const BUILTIN = new Map<string, ResolvedPermission>([
  ...SHARED.map((c) => [`${c}:read`, grant(null)] as const),
  ...Object.entries(OWN_ROWS).map(([c, filter]) => [`${c}:read`, grant(filter)] as const),
  // The preset makes an omitted user the caller (a payload without it would otherwise pass as a global preset).
  ['svc_presets:create', grant(null, { validation: { user: { _eq: '$CURRENT_USER' } }, presets: { user: '$CURRENT_USER' } })],
  ['svc_users:read', grant({ id: { _eq: '$CURRENT_USER' } }, { fields: SELF_USER_FIELDS })],
  ['svc_roles:read', grant({ id: { _in: '$CURRENT_ROLES' } })],
  ['svc_policies:read', grant({ id: { _in: '$CURRENT_POLICIES' } })],
  ['svc_access:read', grant({ _or: [{ user: { _eq: '$CURRENT_USER' } }, { role: { _in: '$CURRENT_ROLES' } }] })],
  ['svc_permissions:read', grant({ policy: { _in: '$CURRENT_POLICIES' } })],
]);

/** The built-in permission of an app_access caller for this action, or null. */
export function builtinPermission(collection: string, action: PermissionAction): ResolvedPermission | null {
  return BUILTIN.get(`${collection}:${action}`) ?? null;
}
