/** Which transforms a request may ask for (settings.storage_asset_transform, as Directus): `all` allows any
 * transform and any known preset `key`; `presets` only known preset keys; `none` only the built-in system
 * presets the admin app relies on. Refusals are 403 FORBIDDEN. A `key` cannot be combined with other transform
 * parameters (400 INVALID_QUERY). Presets come from settings.storage_asset_presets. */
import type { Executor } from '../db/database.ts';
import { run } from '../db/database.ts';
import { ForbiddenError, InvalidQueryError } from '../errors.ts';
import { parseTransform } from './parse-transform.ts';
import type { TransformOptions } from './transform-options.ts';

export type TransformPolicy = 'all' | 'none' | 'presets';

export interface AssetSettings {
  policy: TransformPolicy;
  presets: Record<string, unknown>[];
}

/** Directus' system presets (thumbnails of the admin app), always available. */
export const SYSTEM_PRESETS: Record<string, unknown>[] = [
  { key: 'system-small-cover', format: 'auto', width: 64, height: 64, fit: 'cover' },
  { key: 'system-small-contain', format: 'auto', width: 64, fit: 'contain' },
  { key: 'system-medium-cover', format: 'auto', width: 300, height: 300, fit: 'cover' },
  { key: 'system-medium-contain', format: 'auto', width: 300, fit: 'contain' },
  { key: 'system-large-cover', format: 'auto', width: 800, height: 800, fit: 'cover' },
  { key: 'system-large-contain', format: 'auto', width: 800, fit: 'contain' },
];

/** Read once per schema version: PATCH /settings bumps it (as every cache of settings here relies on). */
const cached = new WeakMap<object, Promise<AssetSettings>>();

export function assetSettings(db: Executor, schema: object): Promise<AssetSettings> {
  let hit = cached.get(schema);
  if (!hit) {
    hit = loadAssetSettings(db);
    cached.set(schema, hit);
    hit.catch(() => cached.delete(schema));
  }
  return hit;
}

export async function loadAssetSettings(db: Executor): Promise<AssetSettings> {
  const [row] = await run<{ storage_asset_transform: string | null; storage_asset_presets: unknown }>(db,
    '/*p*/ select storage_asset_transform, storage_asset_presets from svc_settings where id = 1');
  const policy = (['all', 'none', 'presets'] as const).find((p) => p === row?.storage_asset_transform) ?? 'all';
  let presets = row?.storage_asset_presets;
  if (typeof presets === 'string') presets = JSON.parse(presets);
  return { policy, presets: Array.isArray(presets) ? presets.filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null) : [] };
}

function presetTransform(preset: Record<string, unknown>, maxDimension: number): TransformOptions {
  return parseTransform(preset, maxDimension);
}

/** The transform to apply for the request's transform parameters under the project's settings. */
export function resolveTransform(query: Record<string, string | undefined>, settings: AssetSettings, maxDimension: number): TransformOptions {
  const key = query.key;
  if (key !== undefined) {
    const others = Object.keys(parseTransform(query, Number.MAX_SAFE_INTEGER));
    if (others.length) throw new InvalidQueryError('You can\'t combine the "key" query parameter with any other transformation.');
    const system = SYSTEM_PRESETS.find((p) => p.key === key);
    if (system) return presetTransform(system, Number.MAX_SAFE_INTEGER);
    const preset = settings.presets.find((p) => p.key === key);
    if (!preset) {
      if (settings.policy === 'all') throw new InvalidQueryError(`Key "${key.slice(0, 100)}" isn't configured.`);
      throw new ForbiddenError('Only configured presets can be used in asset generation.');
    }
    if (settings.policy === 'none') throw new ForbiddenError('Dynamic asset generation has been disabled for this project.');
    return presetTransform(preset, maxDimension);
  }
  const options = parseTransform(query, maxDimension);
  if (Object.keys(options).length === 0) return options;
  if (settings.policy === 'presets') throw new ForbiddenError('Only configured presets can be used in asset generation.');
  if (settings.policy === 'none') throw new ForbiddenError('Dynamic asset generation has been disabled for this project.');
  return options;
}
