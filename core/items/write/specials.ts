/** Directus' automatic field specials: user-created/date-created stamped on create, user-updated/date-updated
 * on update, overriding any value the payload carries (and not subject to field permissions, as in Directus). */
import type { Accountability } from '../../access/accountability.ts';
import type { CollectionOverview } from '../../schema/types.ts';
import type { Payload } from './types.ts';

interface Stamps { create: [string, 'user' | 'date'][]; update: [string, 'user' | 'date'][] }

const byCollection = new WeakMap<CollectionOverview, Stamps | null>();

function stampsOf(collection: CollectionOverview): Stamps | null {
  let hit = byCollection.get(collection);
  if (hit === undefined) {
    const s: Stamps = { create: [], update: [] };
    for (const f of Object.values(collection.fields)) {
      if (f.special.includes('user-created')) s.create.push([f.field, 'user']);
      if (f.special.includes('date-created')) s.create.push([f.field, 'date']);
      if (f.special.includes('user-updated')) s.update.push([f.field, 'user']);
      if (f.special.includes('date-updated')) s.update.push([f.field, 'date']);
    }
    hit = s.create.length + s.update.length > 0 ? s : null;
    byCollection.set(collection, hit);
  }
  return hit;
}

export function stampPayload(collection: CollectionOverview, mode: 'create' | 'update', payload: Payload, acc: Accountability): Payload {
  const stamps = stampsOf(collection)?.[mode];
  if (!stamps || stamps.length === 0) return payload;
  const out: Payload = { ...payload };
  const now = new Date().toISOString();
  for (const [field, kind] of stamps) out[field] = kind === 'user' ? acc.user : now;
  return out;
}
