/** A field being created or edited, as the form holds it, and the payloads it becomes: `{field, type, meta, schema}`
 * for POST /fields/{collection}, and for a PATCH only the type and the schema keys that changed (each schema change
 * is an ALTER TABLE) with the whole meta. */
import { emptyGroup, fromApiFilter, toApiFilter, type GroupNode } from '../../content/list/filter.ts';
import type { Choice } from '../../content/item/model.ts';
import { AUTOMATIC_SPECIALS, defaultDisplay, defaultInterface, type FieldType } from '../catalog.ts';
import type { FullField } from '../model.ts';

export type Tri = '' | 'true' | 'false';

export interface ConditionDraft {
  id: string;
  name: string;
  rule: GroupNode;
  hidden: Tri;
  readonly: Tri;
  required: Tri;
  /** Replacement choices of a dropdown while the rule matches, or null to keep the field's. */
  choices: Choice[] | null;
}

export interface Draft {
  field: string;
  type: FieldType;
  maxLength: string;
  precision: string;
  scale: string;
  /** null: no default. */
  defaultValue: unknown;
  nullable: boolean;
  unique: boolean;
  indexed: boolean;
  automatic: string;
  interface: string;
  options: Record<string, unknown>;
  display: string;
  displayOptions: Record<string, unknown>;
  note: string;
  width: 'half' | 'full' | 'fill';
  hidden: boolean;
  readonly: boolean;
  required: boolean;
  group: string;
  validation: GroupNode;
  validationMessage: string;
  conditions: ConditionDraft[];
  /** Specials other than the automatic value (o2m, m2o, group…), kept as they are. */
  otherSpecial: string[];
}

/** Specials the server derives from the type (core/schema/field-types.ts): dropped on a type change. */
const IMPLICIT = new Set(['cast-csv', 'hash', 'cast-json', 'cast-boolean']);

let seq = 0;
export function conditionId(): string {
  seq += 1;
  return `c${seq}`;
}

function tri(v: unknown): Tri {
  return v === true ? 'true' : v === false ? 'false' : '';
}

export function choiceList(raw: unknown): Choice[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((c) => (c && typeof c === 'object' && 'value' in c
    ? { value: (c as Choice).value, text: String((c as { text?: unknown }).text ?? (c as Choice).value) }
    : { value: c, text: String(c) }));
}

export function newDraft(kind: 'field' | 'group'): Draft {
  const type: FieldType = kind === 'group' ? 'alias' : 'string';
  return {
    field: '', type, maxLength: '', precision: '', scale: '', defaultValue: null, nullable: true, unique: false, indexed: false,
    automatic: '', interface: kind === 'group' ? 'group-detail' : defaultInterface(type), options: {}, display: '', displayOptions: {},
    note: '', width: 'full', hidden: false, readonly: false, required: false, group: '',
    validation: emptyGroup(), validationMessage: '', conditions: [], otherSpecial: kind === 'group' ? ['alias', 'no-data', 'group'] : [],
  };
}

export function draftOf(f: FullField): Draft {
  const m = f.meta;
  const special = m?.special ?? [];
  return {
    field: f.field,
    type: f.type as FieldType,
    maxLength: f.type === 'string' && f.schema?.max_length ? String(f.schema.max_length) : '',
    precision: f.type === 'decimal' && f.schema?.numeric_precision ? String(f.schema.numeric_precision) : '',
    scale: f.type === 'decimal' && f.schema?.numeric_scale != null ? String(f.schema.numeric_scale) : '',
    defaultValue: f.schema?.default_value ?? null,
    nullable: f.schema?.is_nullable ?? true,
    unique: Boolean(f.schema?.is_unique),
    // A unique column is indexed by its unique index: the box means a plain index of its own.
    indexed: Boolean(f.schema?.is_indexed) && !f.schema?.is_unique,
    automatic: special.find((s) => AUTOMATIC_SPECIALS.has(s)) ?? '',
    interface: m?.interface ?? '',
    options: { ...(m?.options ?? {}) },
    display: m?.display ?? '',
    displayOptions: { ...(m?.display_options ?? {}) },
    note: m?.note ?? '',
    width: m?.width === 'half' || m?.width === 'fill' ? m.width : m?.width === 'half-left' || m?.width === 'half-right' ? 'half' : 'full',
    hidden: Boolean(m?.hidden),
    readonly: Boolean(m?.readonly),
    required: Boolean(m?.required),
    group: m?.group ?? '',
    validation: m?.validation ? fromApiFilter(m.validation) : emptyGroup(),
    validationMessage: m?.validation_message ?? '',
    conditions: (m?.conditions ?? []).map((raw) => {
      const c = (raw ?? {}) as Record<string, unknown>;
      const options = c.options as Record<string, unknown> | undefined;
      return {
        id: conditionId(), name: typeof c.name === 'string' ? c.name : '', rule: fromApiFilter(c.rule),
        hidden: tri(c.hidden), readonly: tri(c.readonly), required: tri(c.required),
        choices: options && Array.isArray(options.choices) ? choiceList(options.choices) : null,
      };
    }),
    otherSpecial: special.filter((s) => !AUTOMATIC_SPECIALS.has(s)),
  };
}

/** The draft with a new type: the interface and display follow when the old ones don't fit it. */
export function withType(d: Draft, type: FieldType, fits: (iface: string) => boolean): Draft {
  const iface = fits(d.interface) ? d.interface : defaultInterface(type);
  return {
    ...d, type, interface: iface, options: iface === d.interface ? d.options : {}, display: '', displayOptions: {}, automatic: '', defaultValue: null,
    otherSpecial: d.otherSpecial.filter((s) => !IMPLICIT.has(s)),
  };
}

const triValue = (t: Tri): boolean | undefined => (t === '' ? undefined : t === 'true');

/** A filter's type lookup for the API value (booleans as booleans). */
export type TypeOf = (path: string) => string | undefined;

/** Choices as stored: rows left empty dropped, a missing text filled with the value. */
function cleanChoices(list: Choice[]): Choice[] {
  return list.filter((c) => String(c.value ?? '') !== '' || c.text.trim() !== '')
    .map((c) => ({ text: c.text.trim() || String(c.value ?? ''), value: c.value }));
}

export function metaOf(d: Draft, typeOf: TypeOf): Record<string, unknown> {
  const options = Object.fromEntries(Object.entries(d.options).filter(([, v]) => v !== '' && v !== undefined && v !== null)
    .map(([k, v]) => [k, k === 'choices' ? cleanChoices(choiceList(v)) : v]));
  const displayOptions = Object.fromEntries(Object.entries(d.displayOptions).filter(([, v]) => v !== '' && v !== undefined && v !== null && v !== false));
  const conditions = d.conditions.map((c) => {
    const out: Record<string, unknown> = { name: c.name || undefined, rule: toApiFilter(c.rule, typeOf) ?? {} };
    for (const key of ['hidden', 'readonly', 'required'] as const) {
      const v = triValue(c[key]);
      if (v !== undefined) out[key] = v;
    }
    if (c.choices) out.options = { choices: cleanChoices(c.choices) };
    return out;
  });
  return {
    interface: d.interface || null,
    options: Object.keys(options).length ? options : null,
    display: d.display || null,
    display_options: d.display && Object.keys(displayOptions).length ? displayOptions : null,
    note: d.note.trim() || null,
    width: d.width,
    hidden: d.hidden,
    readonly: d.readonly,
    required: d.required,
    group: d.group || null,
    validation: toApiFilter(d.validation, typeOf),
    validation_message: d.validationMessage.trim() || null,
    conditions: conditions.length ? conditions : null,
    special: [...d.otherSpecial, ...(d.automatic ? [d.automatic] : [])],
  };
}

function int(text: string): number | null {
  const t = text.trim();
  return t === '' ? null : Number(t);
}

export function schemaOf(d: Draft): Record<string, unknown> {
  const s: Record<string, unknown> = { is_nullable: d.nullable, is_unique: d.unique, is_indexed: d.indexed || d.unique, default_value: d.defaultValue };
  if (d.type === 'string') s.max_length = int(d.maxLength) ?? 255;
  if (d.type === 'decimal') {
    s.numeric_precision = int(d.precision) ?? 10;
    s.numeric_scale = int(d.scale) ?? 5;
  }
  return s;
}

/** Problems the server would refuse, found before sending: by the control they belong to. */
export function draftProblems(d: Draft): Record<string, string> {
  const out: Record<string, string> = {};
  const intIn = (key: string, text: string, min: number, max: number, what: string) => {
    const t = text.trim();
    if (t !== '' && (!/^\d+$/.test(t) || Number(t) < min || Number(t) > max)) out[key] = `${what} is a whole number from ${min} to ${max}.`;
  };
  if (d.type === 'string') intIn('maxLength', d.maxLength, 1, 10_485_760, 'The length');
  if (d.type === 'decimal') {
    intIn('precision', d.precision, 1, 1000, 'The precision');
    intIn('scale', d.scale, 0, 1000, 'The scale');
    if (!out.precision && !out.scale && d.scale.trim() !== '' && Number(d.scale) > Number(d.precision.trim() || 10)) out.scale = 'The scale can’t be more than the precision.';
  }
  if ((d.interface === 'select-dropdown' || d.interface === 'select-radio') && cleanChoices(choiceList(d.options.choices)).length === 0) {
    out.choices = 'Add at least one choice.';
  }
  return out;
}

export function suggestedDisplay(d: Draft): string {
  return defaultDisplay(d.type, d.interface) ?? '';
}
