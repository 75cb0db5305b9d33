/** Batch edit: one field set to one value on the selected items (PATCH /items/{collection} {keys, data}). Only the
 * fields the caller may update are offered; a many-to-one field picks the related item by its display. */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { request, requestList } from '../../api/client.ts';
import { ApiError, messageOf } from '../../api/errors.ts';
import { fieldsOf, primaryKeyOf, relationFor, titleOf, type Field } from '../schema.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { displayOf, type Schema } from './model.ts';
import { formatCount } from './format.ts';

const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);
const INPUT_TYPE: Record<string, string> = { date: 'date', time: 'time', dateTime: 'datetime-local', timestamp: 'datetime-local' };

function toWire(field: Field, text: string): unknown {
  if (field.type === 'boolean') return text === 'true';
  if (field.type === 'integer' || field.type === 'float') {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`${titleOf(field.field)} needs a number.`);
    return n;
  }
  if (field.type === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${titleOf(field.field)} needs valid JSON.`);
    }
  }
  if (field.type === 'csv') return text.split(',').map((s) => s.trim()).filter(Boolean);
  return text;
}

export function BatchEditDialog({ schema, collection, keys, fields, onClose, onDone }: {
  schema: Schema;
  collection: string;
  keys: (string | number)[];
  fields: Field[];
  onClose(): void;
  onDone(): void;
}) {
  const [name, setName] = useState(fields[0]?.field ?? '');
  const [value, setValue] = useState('');
  const [clear, setClear] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const field = fields.find((f) => f.field === name);
  const rel = field ? relationFor(schema.relations, collection, field.field) : null;
  const related = rel && (rel.kind === 'm2o' || rel.kind === 'file') ? rel.relation.related_collection : null;
  const nullable = field?.schema?.is_nullable !== false;
  const relatedPkType = related ? fieldsOf(schema.fields, related).find((f) => f.schema?.is_primary_key)?.type : undefined;

  const submit = async (): Promise<void> => {
    if (!field) return;
    setError(null);
    let data: unknown;
    try {
      data = clear ? null : related ? (value === '' ? null : relatedPkType === 'integer' ? Number(value) : value) : toWire(field, value);
    } catch (err) {
      setError(messageOf(err));
      return;
    }
    setBusy(true);
    try {
      await request('PATCH', `/items/${collection}`, { body: { keys, data: { [field.field]: data } } });
      onDone();
    } catch (err) {
      const byField = err instanceof ApiError ? err.fieldErrors()[field.field] : undefined;
      setError(byField ?? messageOf(err));
      setBusy(false);
    }
  };

  const count = formatCount(keys.length);
  return (
    <Dialog title={`Edit ${count} ${keys.length === 1 ? 'item' : 'items'}`} onClose={onClose} onSubmit={() => void submit()}
      footer={(
        <>
          <button type="button" className="btn" onClick={onClose}>Cancel</button>
          <button type="submit" className="btn btn-primary" disabled={busy || !field}>{busy ? 'Saving…' : `Save ${count} ${keys.length === 1 ? 'item' : 'items'}`}</button>
        </>
      )}>
      <p className="muted">The value you enter replaces the field's value on every selected item.</p>
      <div className="field">
        <label htmlFor="batch-field">Field</label>
        <select id="batch-field" value={name} onChange={(e) => { setName(e.target.value); setValue(''); setClear(false); setError(null); }}>
          {fields.map((f) => <option key={f.field} value={f.field}>{titleOf(f.field)}</option>)}
        </select>
      </div>
      {field && (
        <div className="field">
          <label htmlFor="batch-value">New value</label>
          {related ? <RelatedPicker schema={schema} collection={related} value={value} onChange={setValue} disabled={clear} />
            : field.type === 'boolean' ? (
              <select id="batch-value" value={value || 'false'} onChange={(e) => setValue(e.target.value)} disabled={clear}>
                <option value="true">Yes (true)</option>
                <option value="false">No (false)</option>
              </select>
            ) : field.type === 'text' || field.type === 'json' ? (
              <textarea id="batch-value" value={value} onChange={(e) => setValue(e.target.value)} disabled={clear} aria-invalid={error ? true : undefined} aria-describedby={error ? 'batch-error' : undefined} />
            ) : (
              <input id="batch-value" type={INPUT_TYPE[field.type] ?? (NUMBER_TYPES.has(field.type) ? 'number' : 'text')} step={NUMBER_TYPES.has(field.type) ? 'any' : undefined}
                value={value} onChange={(e) => setValue(e.target.value)} disabled={clear} aria-invalid={error ? true : undefined} aria-describedby={error ? 'batch-error' : undefined} />
            )}
          {field.meta?.note && <span className="field-note">{field.meta.note}</span>}
        </div>
      )}
      {field && nullable && (
        <label className="check-line">
          <input type="checkbox" checked={clear} onChange={(e) => setClear(e.target.checked)} />
          <span>Clear the value (set it to empty)</span>
        </label>
      )}
      {error && <p className="field-error" id="batch-error" role="alert">{error}</p>}
    </Dialog>
  );
}

/** A related item picked by its display, narrowed by a search. */
function RelatedPicker({ schema, collection, value, onChange, disabled }: { schema: Schema; collection: string; value: string; onChange(v: string): void; disabled: boolean }) {
  const [search, setSearch] = useState('');
  const display = displayOf(schema, collection);
  const pk = primaryKeyOf(fieldsOf(schema.fields, collection));
  const items = useQuery({
    queryKey: ['items', collection, 'picker', search],
    queryFn: ({ signal }) => requestList<Record<string, unknown>>(`/items/${collection}`, { fields: [...new Set([pk, ...display.fields])], search: search || undefined, limit: 50 }, signal),
  });
  return (
    <div className="related-picker">
      <input type="search" aria-label={`Search ${titleOf(collection)}`} placeholder={`Search ${titleOf(collection).toLowerCase()}…`} value={search} onChange={(e) => setSearch(e.target.value)} disabled={disabled} />
      <select id="batch-value" value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled} size={6}>
        <option value="">(none)</option>
        {(items.data?.data ?? []).map((item) => {
          const key = String(item[pk]);
          return <option key={key} value={key}>{display.render(item) || key}</option>;
        })}
      </select>
      {items.error ? <span className="field-error">{messageOf(items.error)}</span> : null}
    </div>
  );
}
