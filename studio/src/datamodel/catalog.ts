/** What a field can be: the API's field types (SPEC "svc_fields"), the interfaces the item editor renders for each
 * (content/item/model.ts decides the input from type and interface, and reads `choices` and a group's `start`), and
 * the displays other clients read for lists (Directus' names), each with the options it takes. */

export type FieldType =
  | 'string' | 'text' | 'integer' | 'bigInteger' | 'float' | 'decimal' | 'boolean' | 'date' | 'time' | 'timestamp'
  | 'dateTime' | 'uuid' | 'json' | 'csv' | 'hash' | 'alias';

export interface TypeInfo { type: FieldType; label: string; note: string }

/** The stored types, in the order a person looks for them. */
export const TYPES: readonly TypeInfo[] = [
  { type: 'string', label: 'String', note: 'Short text with a maximum length (255 unless you set one).' },
  { type: 'text', label: 'Text', note: 'Text of any length: descriptions, articles, Markdown.' },
  { type: 'integer', label: 'Integer', note: 'Whole numbers up to about two billion.' },
  { type: 'bigInteger', label: 'Big integer', note: 'Whole numbers beyond two billion.' },
  { type: 'float', label: 'Float', note: 'Numbers with a fraction, approximate (measurements).' },
  { type: 'decimal', label: 'Decimal', note: 'Exact numbers with a fixed number of decimals (money).' },
  { type: 'boolean', label: 'Boolean', note: 'On or off.' },
  { type: 'date', label: 'Date', note: 'A calendar day.' },
  { type: 'time', label: 'Time', note: 'A time of day.' },
  { type: 'dateTime', label: 'Date and time', note: 'A date and time on the wall clock, without a time zone.' },
  { type: 'timestamp', label: 'Timestamp', note: 'An instant, stored with its time zone (ISO 8601 on output).' },
  { type: 'uuid', label: 'UUID', note: 'A universally unique identifier.' },
  { type: 'json', label: 'JSON', note: 'Structured data: objects, lists.' },
  { type: 'csv', label: 'CSV (tags)', note: 'A list of words, stored comma-separated.' },
  { type: 'hash', label: 'Hash', note: 'A secret stored one-way hashed (passwords, PINs): never shown again.' },
];

export function typeLabel(type: string): string {
  if (type === 'alias') return 'Alias';
  return TYPES.find((t) => t.type === type)?.label ?? type;
}

/** An option of an interface or a display: a typed control in the field editor. */
export interface OptionSpec {
  key: string;
  label: string;
  kind: 'text' | 'boolean' | 'select' | 'choices';
  /** For 'select'. */
  values?: readonly { value: string; label: string }[];
  note?: string;
}

export interface InterfaceInfo {
  id: string;
  label: string;
  types: readonly FieldType[];
  note: string;
  options: readonly OptionSpec[];
}

const NUMBERS: FieldType[] = ['integer', 'bigInteger', 'float', 'decimal'];
const DATES: FieldType[] = ['date', 'time', 'dateTime', 'timestamp'];
const CHOICES: OptionSpec = { key: 'choices', label: 'Choices', kind: 'choices', note: 'What the person picks from: the value stored, and the text shown.' };

export const INTERFACES: readonly InterfaceInfo[] = [
  { id: 'input', label: 'Text input', types: ['string', 'uuid', ...NUMBERS], note: 'A one-line box (a number box for numbers).', options: [] },
  { id: 'input-multiline', label: 'Textarea', types: ['string', 'text'], note: 'Several lines of plain text.', options: [] },
  { id: 'input-rich-text-md', label: 'Markdown', types: ['text'], note: 'Markdown with a toolbar and a preview.', options: [] },
  { id: 'input-rich-text-html', label: 'Rich text (HTML)', types: ['text'], note: 'Formatted text, stored as HTML.', options: [] },
  { id: 'select-dropdown', label: 'Dropdown', types: ['string', 'text', ...NUMBERS], note: 'One value from a list of choices.', options: [CHOICES] },
  { id: 'select-radio', label: 'Radio buttons', types: ['string', 'text', ...NUMBERS], note: 'One value from a short list of choices.', options: [CHOICES] },
  { id: 'boolean', label: 'Toggle', types: ['boolean'], note: 'An on/off switch.', options: [] },
  { id: 'datetime', label: 'Date and time picker', types: DATES, note: 'The browser’s date and time picker.', options: [] },
  { id: 'input-code', label: 'Code (JSON)', types: ['json'], note: 'JSON typed in a code box, checked as it is typed.', options: [] },
  { id: 'tags', label: 'Tags', types: ['csv'], note: 'Words added with Enter, removed with ×.', options: [] },
  { id: 'input-hash', label: 'Password', types: ['hash'], note: 'A masked box; the stored hash is never shown.', options: [] },
];

/** Interfaces of alias fields that are made by the relation wizards or as groups, shown by name only. */
const ALIAS_INTERFACES: Record<string, string> = {
  'select-dropdown-m2o': 'Many-to-one dropdown', 'list-o2m': 'One-to-many list', 'list-m2m': 'Many-to-many list',
  'list-m2a': 'Many-to-any builder', 'file': 'File', 'file-image': 'Image', 'files': 'Files',
  'group-detail': 'Group (collapsible)', 'group-accordion': 'Group (accordion)', 'group-raw': 'Group (plain)',
};

export const GROUP_INTERFACES: readonly InterfaceInfo[] = [
  {
    id: 'group-detail', label: 'Collapsible section', types: ['alias'], note: 'A titled section that can be folded away.',
    options: [{ key: 'start', label: 'Starts', kind: 'select', values: [{ value: 'open', label: 'Open' }, { value: 'closed', label: 'Closed' }] }],
  },
  { id: 'group-raw', label: 'Plain section', types: ['alias'], note: 'A titled frame around its fields, always open.', options: [] },
];

export function interfacesFor(type: string): InterfaceInfo[] {
  return INTERFACES.filter((i) => (i.types as readonly string[]).includes(type));
}

export function defaultInterface(type: string): string {
  switch (type) {
    case 'text': return 'input-multiline';
    case 'boolean': return 'boolean';
    case 'date': case 'time': case 'dateTime': case 'timestamp': return 'datetime';
    case 'json': return 'input-code';
    case 'csv': return 'tags';
    case 'hash': return 'input-hash';
    default: return 'input';
  }
}

export function interfaceLabel(id: string | null | undefined): string {
  if (!id) return '—';
  return INTERFACES.find((i) => i.id === id)?.label ?? GROUP_INTERFACES.find((i) => i.id === id)?.label ?? ALIAS_INTERFACES[id] ?? id;
}

export function interfaceInfo(id: string | null | undefined): InterfaceInfo | undefined {
  return INTERFACES.find((i) => i.id === id) ?? GROUP_INTERFACES.find((i) => i.id === id);
}

export interface DisplayInfo { id: string; label: string; types: readonly FieldType[] | 'all'; options: readonly OptionSpec[] }

export const DISPLAYS: readonly DisplayInfo[] = [
  { id: 'raw', label: 'Raw value', types: 'all', options: [] },
  {
    id: 'formatted-value', label: 'Formatted value', types: ['string', 'text', ...NUMBERS],
    options: [
      { key: 'prefix', label: 'Prefix', kind: 'text' },
      { key: 'suffix', label: 'Suffix', kind: 'text' },
      { key: 'format', label: 'Format numbers and words for reading', kind: 'boolean' },
    ],
  },
  {
    id: 'boolean', label: 'Yes / no', types: ['boolean'],
    options: [{ key: 'labelOn', label: 'Text when on', kind: 'text' }, { key: 'labelOff', label: 'Text when off', kind: 'text' }],
  },
  {
    id: 'datetime', label: 'Date and time', types: DATES,
    options: [
      { key: 'relative', label: 'Relative (“3 days ago”)', kind: 'boolean' },
      { key: 'format', label: 'Length', kind: 'select', values: [{ value: 'short', label: 'Short' }, { value: 'long', label: 'Long' }] },
    ],
  },
  { id: 'labels', label: 'Labels', types: ['string', 'text', 'csv', 'json', ...NUMBERS], options: [{ key: 'showAsDot', label: 'Show as a dot', kind: 'boolean' }] },
  { id: 'mime-type', label: 'File type', types: ['string'], options: [] },
  { id: 'icon', label: 'Icon', types: ['string'], options: [] },
  { id: 'color', label: 'Color swatch', types: ['string'], options: [] },
];

export function displaysFor(type: string): DisplayInfo[] {
  return DISPLAYS.filter((d) => d.types === 'all' || (d.types as readonly string[]).includes(type));
}

/** A sensible display for a new field of the type (Directus' choice), or null for the raw value. */
export function defaultDisplay(type: string, iface: string): string | null {
  if (iface === 'select-dropdown' || iface === 'select-radio' || type === 'csv') return 'labels';
  if (type === 'boolean') return 'boolean';
  if (DATES.includes(type as FieldType)) return 'datetime';
  return null;
}

/** Values written automatically by the server (core/items/write/specials.ts). */
export const AUTOMATIC: Record<string, readonly { value: string; label: string }[]> = {
  timestamp: [{ value: 'date-created', label: 'Date created' }, { value: 'date-updated', label: 'Date updated' }],
  dateTime: [{ value: 'date-created', label: 'Date created' }, { value: 'date-updated', label: 'Date updated' }],
  uuid: [{ value: 'user-created', label: 'User who created the item' }, { value: 'user-updated', label: 'User who last updated it' }],
};
export const AUTOMATIC_SPECIALS = new Set(['date-created', 'date-updated', 'user-created', 'user-updated']);

/** The primary key types a related collection can have, as the foreign key field's type. */
export function foreignKeyType(pk: { type: string; schema: { max_length?: number | null } | null } | undefined): { type: FieldType; maxLength: number | null } {
  if (!pk) return { type: 'integer', maxLength: null };
  const type = pk.type as FieldType;
  return { type, maxLength: type === 'string' ? pk.schema?.max_length ?? 255 : null };
}
