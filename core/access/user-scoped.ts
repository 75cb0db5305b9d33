/** User-scoped system collections (SPEC.md > Permission evaluation rule 2): without an explicit permission an
 * app_access caller reads only its own rows of these, through the filter below. $CURRENT_* variables are
 * resolved by the query planner like in any permission filter. */
import type { Filter } from '../query/types.ts';

export const OWN_ROWS: Readonly<Record<string, Filter>> = Object.freeze({
  svc_activity: { user: { _eq: '$CURRENT_USER' } },
  svc_notifications: { recipient: { _eq: '$CURRENT_USER' } },
  // Own presets, plus global ones (no user) of one of the caller's roles or of no role.
  svc_presets: {
    _or: [
      { user: { _eq: '$CURRENT_USER' } },
      { _and: [{ user: { _null: true } }, { role: { _in: '$CURRENT_ROLES' } }] },
      { _and: [{ user: { _null: true } }, { role: { _null: true } }] },
    ],
  },
  svc_shares: { user_created: { _eq: '$CURRENT_USER' } },
});
