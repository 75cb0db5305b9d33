/** A permission's presets: field values a create (or update) starts from, one line per field. The value's input
 * follows the field's type (yes/no, a number, JSON, text; `$CURRENT_USER` and the like are text the server
 * resolves). Values are read back into the API's JSON when saving; one that does not parse is told on its line. */
import { useId } from 'react';
import { titleOf, type Field } from '../../content/schema.ts';

export interface PresetLine { key: number; field: string; value: string }

let seq = 0;

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);

export function presetDraftOf(presets: Record<string, unknown> | null): PresetLine[] {
  return Object.entries(presets ?? {}).map(([field, value]) => ({
    key: ++seq, field, value: value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value),
  }));
}

/** The lines as the API's presets object, or what is wrong with a line (by its key). */
export function presetsOf(lines: PresetLine[], fields: Field[]): { value: Record<string, unknown>; errors: Record<number, string> } {
  const value: Record<string, unknown> = {};
  const errors: Record<number, string> = {};
  for (const line of lines) {
    if (!line.field) {
      errors[line.key] = 'Choose a field, or remove this line.';
      continue;
    }
    if (line.field in value) {
      errors[line.key] = `${titleOf(line.field)} has a preset already.`;
      continue;
    }
    const type = fields.find((f) => f.field === line.field)?.type ?? 'string';
    const text = line.value;
    if (type === 'boolean') value[line.field] = text === '' ? null : text === 'true';
    else if (NUMBER_TYPES.has(type) && !text.startsWith('$')) {
      if (text.trim() === '') value[line.field] = null;
      else if (Number.isFinite(Number(text))) value[line.field] = type === 'bigInteger' || type === 'decimal' ? text.trim() : Number(text);
      else errors[line.key] = `"${text}" is not a number.`;
    } else if (type === 'json' || type === 'csv') {
      if (text.trim() === '') value[line.field] = null;
      else {
        try {
          value[line.field] = JSON.parse(text);
        } catch {
          errors[line.key] = 'Not valid JSON (strings need quotes: "like this").';
        }
      }
    } else value[line.field] = text;
  }
  return { value, errors };
}

export function PresetsEditor({ fields, lines, onChange, errors, action }: {
  fields: Field[];
  action: 'create' | 'update';
  lines: PresetLine[];
  onChange(next: PresetLine[]): void;
  errors: Record<number, string>;
}) {
  const id = useId();
  const settable = fields.filter((f) => f.type !== 'alias' && !f.schema?.has_auto_increment);
  const update = (key: number, patch: Partial<PresetLine>): void => onChange(lines.map((l) => (l.key === key ? { ...l, ...patch } : l)));
  return (
    <div className="presets-editor">
      <p className="field-note">{action === 'create'
        ? 'Values a new item starts with. A value the person sets for the field themselves wins over the preset.'
        : 'Kept with the permission, as in Directus; this server applies presets to new items only (set them on Create).'}</p>
      {lines.length === 0 ? <p className="muted">No presets.</p> : (
        <ol className="preset-lines" aria-label="Presets">
          {lines.map((line, i) => {
            const type = settable.find((f) => f.field === line.field)?.type ?? 'string';
            const n = i + 1;
            return (
              <li key={line.key}>
                <div className="preset-line">
                  <select aria-label={`Preset ${n}: field`} value={line.field} onChange={(e) => update(line.key, { field: e.target.value, value: '' })}>
                    <option value="">Choose a field…</option>
                    {settable.map((f) => <option key={f.field} value={f.field}>{titleOf(f.field)}</option>)}
                  </select>
                  {type === 'boolean' ? (
                    <select aria-label={`Preset ${n}: value`} value={line.value} onChange={(e) => update(line.key, { value: e.target.value })}>
                      <option value="">Empty (null)</option>
                      <option value="true">Yes (true)</option>
                      <option value="false">No (false)</option>
                    </select>
                  ) : (
                    <input aria-label={`Preset ${n}: value`} value={line.value} spellCheck={false} className={type === 'json' || type === 'csv' ? 'mono' : undefined}
                      inputMode={NUMBER_TYPES.has(type) ? 'decimal' : undefined} placeholder={type === 'json' ? '{"key": "value"}' : 'Value'}
                      aria-invalid={errors[line.key] ? true : undefined} aria-describedby={errors[line.key] ? `${id}-${line.key}` : undefined}
                      onChange={(e) => update(line.key, { value: e.target.value })} />
                  )}
                  <button type="button" className="btn btn-ghost icon-btn" aria-label={`Remove preset ${n}`} title="Remove" onClick={() => onChange(lines.filter((l) => l.key !== line.key))}>✕</button>
                </div>
                {errors[line.key] && <p className="field-error" id={`${id}-${line.key}`}>{errors[line.key]}</p>}
              </li>
            );
          })}
        </ol>
      )}
      <div className="actions-row">
        <button type="button" className="btn btn-small" onClick={() => onChange([...lines, { key: ++seq, field: '', value: '' }])} disabled={settable.length === 0}>+ Add preset</button>
      </div>
    </div>
  );
}
