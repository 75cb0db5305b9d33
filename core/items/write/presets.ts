/** Permission presets (defaults applied on create), with Directus' dynamic variables resolved. */
import type { Accountability } from '../../access/accountability.ts';
import type { Payload } from './types.ts';

function resolve(value: unknown, accountability: Accountability): unknown {
  switch (value) {
    case '$CURRENT_USER': return accountability.user;
    case '$CURRENT_ROLE': return accountability.role;
    case '$CURRENT_ROLES': return accountability.roles;
    case '$CURRENT_POLICIES': return [];
    case '$NOW': return new Date().toISOString();
    default: return value;
  }
}

export function applyPresets(presets: Record<string, unknown>, payload: Payload, accountability: Accountability): Payload {
  const out: Payload = {};
  for (const key of Object.keys(presets)) out[key] = resolve(presets[key], accountability);
  return Object.assign(out, payload);
}
