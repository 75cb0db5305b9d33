/** Configuration as code: the opt-in sections of a snapshot beyond the schema (`config.<section>`), their diff in
 * Directus' deep-diff shape (`diff.config.<section>: [{key, diff}]`) and the steps that apply it. Only the sections a
 * snapshot holds are managed: a section left out is never read, diffed or changed. Rows are matched by their key
 * fields, never by generated ids. Creations and changes run section by section in SECTIONS order (roles before the
 * access that names them, policies before their permissions ...), deletions after them in reverse order. */
import deepDiff, { type Diff } from 'deep-diff';
import type { ServiceContext } from '../../../context.ts';
import { InvalidPayloadError } from '../../../errors.ts';
import { isPlainObject } from '../../ddl/names.ts';
import { stableJson } from '../snapshot.ts';
import { access, appPermissions, permissions, policies, roles } from './access.ts';
import { notifyContents, notifyLayouts, notifyTemplates } from './notify.ts';
import { authProviders, storageProviders } from './providers.ts';
import { assetPresets, presets, settings } from './settings.ts';
import type { ConfigSection, Row } from './types.ts';
import { workflows } from './workflows.ts';

type Change = Diff<any, any>;

export const SECTIONS: readonly ConfigSection[] = [
  roles, policies, access, permissions, appPermissions, settings, assetPresets, presets,
  storageProviders, authProviders, notifyLayouts, notifyTemplates, notifyContents, workflows,
];
export const SECTION_NAMES = SECTIONS.map((s) => s.name);
const BY_NAME = new Map(SECTIONS.map((s) => [s.name, s]));

/** A snapshot's `config`: section name -> rows (a single-object section as its object). */
export type ConfigSnapshot = Record<string, Row[] | Row>;
/** Section name -> row key (stableJson of the key fields) -> row. */
export type ConfigParts = Map<string, Map<string, Row>>;
export type ConfigDiff = Record<string, { key: Row; diff: Change[] }[]>;

export interface ConfigDestructiveStep {
  kind: 'config';
  section: string;
  key: Row;
  description: string;
}

/** `include=roles,policies` or `include=all`: the sections asked for, in SECTIONS order. */
export function parseInclude(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const asked = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (asked.includes('all')) return [...SECTION_NAMES];
  const unknown = asked.filter((s) => !BY_NAME.has(s));
  if (unknown.length) throw new InvalidPayloadError(`"include" names unknown sections (${unknown.join(', ')}); known: all, ${SECTION_NAMES.join(', ')}.`);
  return SECTION_NAMES.filter((n) => asked.includes(n));
}

const keyOf = (section: ConfigSection, row: Row): Row => Object.fromEntries(section.keyFields.map((f) => [f, row[f] ?? null]));
const keyText = (section: ConfigSection, row: Row): string => stableJson(keyOf(section, row));

/** The sections named, as this database holds them (`ctx.db`: the pool, or an apply's transaction). */
export async function readConfig(ctx: ServiceContext, sections: readonly string[]): Promise<ConfigSnapshot> {
  const out: ConfigSnapshot = {};
  for (const name of SECTION_NAMES.filter((n) => sections.includes(n))) {
    const section = BY_NAME.get(name)!;
    const rows = await section.read(ctx);
    out[name] = section.single ? rows[0] ?? {} : rows;
  }
  return out;
}

/** A posted snapshot's `config`: known sections only, each row's shape checked, no key twice. */
export function parseConfig(raw: unknown): ConfigSnapshot {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) throw new InvalidPayloadError('"config" must be an object of sections.');
  const out: ConfigSnapshot = {};
  for (const [name, value] of Object.entries(raw)) {
    const section = BY_NAME.get(name);
    if (!section) throw new InvalidPayloadError(`"config.${name}" is not a configuration section (known: ${SECTION_NAMES.join(', ')}).`);
    if (section.single) {
      if (!isPlainObject(value)) throw new InvalidPayloadError(`"config.${name}" must be an object.`);
      section.check(value, `config.${name}`);
      out[name] = value;
      continue;
    }
    if (!Array.isArray(value)) throw new InvalidPayloadError(`"config.${name}" must be an array.`);
    const seen = new Set<string>();
    out[name] = value.map((row, i) => {
      const where = `config.${name}[${i}]`;
      if (!isPlainObject(row)) throw new InvalidPayloadError(`${where} must be an object.`);
      section.check(row, where);
      const k = keyText(section, row);
      if (seen.has(k)) throw new InvalidPayloadError(`"config.${name}" lists ${k} twice.`);
      seen.add(k);
      return row;
    });
  }
  return out;
}

export function configParts(config: ConfigSnapshot): ConfigParts {
  const out: ConfigParts = new Map();
  for (const [name, value] of Object.entries(config)) {
    const section = BY_NAME.get(name)!;
    const rows = section.single ? [value as Row] : (value as Row[]);
    out.set(name, new Map(rows.map((r) => [keyText(section, r), r])));
  }
  return out;
}

/** The changes from `current` to `desired`, for the sections `desired` holds. */
export function diffConfig(current: ConfigParts, desired: ConfigParts): ConfigDiff {
  const out: ConfigDiff = {};
  for (const name of SECTION_NAMES) {
    const want = desired.get(name);
    if (!want) continue;
    const section = BY_NAME.get(name)!;
    const have = current.get(name) ?? new Map<string, Row>();
    const entries: ConfigDiff[string] = [];
    for (const k of [...new Set([...have.keys(), ...want.keys()])].sort()) {
      const b = want.get(k);
      const whole = have.get(k);
      // A single object (settings) manages the properties the snapshot names: one left out is not a deletion.
      const a = section.single && whole && b ? Object.fromEntries(Object.entries(whole).filter(([f]) => f in b)) : whole;
      if (a === undefined) entries.push({ key: keyOf(section, b!), diff: [{ kind: 'N', rhs: b } as Change] });
      else if (b === undefined) entries.push({ key: keyOf(section, a), diff: [{ kind: 'D', lhs: a } as Change] });
      else {
        // Compared as stable JSON first, so key order alone is never a change.
        if (stableJson(a) === stableJson(b)) continue;
        const d = deepDiff.diff(a, b);
        if (d?.length) entries.push({ key: keyOf(section, b), diff: d });
      }
    }
    out[name] = entries;
  }
  return out;
}

export function isEmptyConfigDiff(d: ConfigDiff): boolean {
  return Object.values(d).every((entries) => entries.length === 0);
}

/** A posted `diff.config`: known sections, each entry a key object and a non-empty list of checked changes. */
export function parseConfigDiff(raw: unknown, parseChange: (c: unknown, where: string) => Change): ConfigDiff {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) throw new InvalidPayloadError('"diff.config" must be an object of sections.');
  const out: ConfigDiff = {};
  for (const [name, entries] of Object.entries(raw)) {
    if (!BY_NAME.has(name)) throw new InvalidPayloadError(`"diff.config.${name}" is not a configuration section (known: ${SECTION_NAMES.join(', ')}).`);
    if (!Array.isArray(entries)) throw new InvalidPayloadError(`"diff.config.${name}" must be an array.`);
    out[name] = entries.map((e, i) => {
      const where = `diff.config.${name}[${i}]`;
      if (!isPlainObject(e) || !isPlainObject(e.key) || !Array.isArray(e.diff) || e.diff.length === 0) {
        throw new InvalidPayloadError(`${where} must be {key, diff} with a key object and a non-empty list of changes.`);
      }
      return { key: e.key, diff: e.diff.map((c, j) => parseChange(c, `${where}.diff[${j}]`)) };
    });
  }
  return out;
}

/** The configuration `diff` leads to from `current` (which holds every section the diff names). */
export function applyConfigDiff(current: ConfigParts, diff: ConfigDiff): ConfigParts {
  const out: ConfigParts = new Map([...current].map(([n, m]) => [n, new Map(m)]));
  for (const [name, entries] of Object.entries(diff)) {
    const section = BY_NAME.get(name)!;
    const map = out.get(name) ?? new Map<string, Row>();
    out.set(name, map);
    for (const e of entries) {
      const k = stableJson(Object.fromEntries(section.keyFields.map((f) => [f, e.key[f] ?? null])));
      const label = `${name} ${k}`;
      const [first] = e.diff;
      if (e.diff.length === 1 && !first.path && first.kind === 'N') {
        if (!isPlainObject(first.rhs)) throw new InvalidPayloadError(`The diff's new entry of ${label} is not an object.`);
        section.check(first.rhs, `diff.config.${name}`);
        map.set(k, structuredClone(first.rhs));
      } else if (e.diff.length === 1 && !first.path && first.kind === 'D') {
        map.delete(k);
      } else {
        const row = map.get(k);
        if (!row) throw new InvalidPayloadError(`The diff changes ${label}, which this database does not have.`);
        const copy = structuredClone(row);
        for (const c of e.diff) {
          if (!c.path?.length) throw new InvalidPayloadError(`A change of ${label} has no path.`);
          deepDiff.applyChange(copy, true, c);
        }
        section.check(copy, `diff.config.${name}`);
        if (keyText(section, copy) !== k) throw new InvalidPayloadError(`The diff changes the key of ${label}: remove the entry and add a new one instead.`);
        map.set(k, copy);
      }
    }
  }
  return out;
}

/** Rows the change from `current` to `desired` deletes: each needs allow_destructive. */
export function configDestructive(current: ConfigParts, desired: ConfigParts): ConfigDestructiveStep[] {
  const out: ConfigDestructiveStep[] = [];
  for (const section of SECTIONS) {
    const want = desired.get(section.name);
    if (!want || section.single) continue;
    for (const [k, row] of current.get(section.name) ?? []) {
      if (want.has(k)) continue;
      out.push({ kind: 'config', section: section.name, key: keyOf(section, row), description: section.describeRemoval?.(row) ?? `Deletes ${section.name} ${k}.` });
    }
  }
  return out;
}

export interface ConfigStep {
  label: string;
  run(ctx: ServiceContext): Promise<void>;
}

/** The steps from `current` to `desired`, for the sections `desired` holds. */
export function planConfigSteps(current: ConfigParts, desired: ConfigParts): ConfigStep[] {
  const steps: ConfigStep[] = [];
  const removals: ConfigStep[] = [];
  for (const section of SECTIONS) {
    const want = desired.get(section.name);
    if (!want) continue;
    const have = current.get(section.name) ?? new Map<string, Row>();
    const added = [...want].filter(([k]) => !have.has(k)).map(([, r]) => r);
    for (const row of section.createOrder ? section.createOrder(added) : added) {
      steps.push({ label: `create ${section.name} ${stableJson(keyOf(section, row))}`, run: (ctx) => section.create(ctx, row) });
    }
    for (const [k, row] of want) {
      const was = have.get(k);
      if (!was || stableJson(was) === stableJson(row)) continue;
      steps.push({ label: `change ${section.name} ${stableJson(keyOf(section, row))}`, run: (ctx) => section.update(ctx, was, row) });
    }
    for (const [k, row] of have) {
      if (want.has(k) || section.single) continue;
      removals.unshift({ label: `delete ${section.name} ${stableJson(keyOf(section, row))}`, run: (ctx) => section.remove(ctx, row) });
    }
  }
  return [...steps, ...removals];
}
