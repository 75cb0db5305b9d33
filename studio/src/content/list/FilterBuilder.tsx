/** The filter builder: conditions (field or relational path, operator, value) in groups matching all or any of
 * them, nested. Every operator of the API is offered where it applies to the field's type; values take the form
 * their operator needs (none, one, a list, two) and the dynamic values $CURRENT_USER and $NOW are offered where
 * they fit. Changes are reported as they happen; the list applies them after a short pause. */
import { useState } from 'react';
import { titleOf } from '../schema.ts';
import type { FilterField } from './model.ts';
import {
  DYNAMIC_VALUES, dynamicLabel, emptyGroup, newRule, operatorInfo, operatorsFor, replaceNode, valueFor,
  type FilterNode, type GroupNode, type RuleNode,
} from './filter.ts';

export function FilterBuilder({ root, fields, onChange, collectionLabel, onClear, wording }: {
  root: GroupNode;
  fields: FilterField[];
  onChange(next: GroupNode): void;
  collectionLabel: string;
  /** Offered beside the root group's buttons when there is something to clear. */
  onClear?: () => void;
  /** The root group's words where the filter is not a list's (a field's validation, a condition's rule). */
  wording?: Wording;
}) {
  const set = (id: string, next: FilterNode | null): void => onChange(replaceNode(root, id, next));
  return (
    <div className="filter-builder">
      <Group group={root} fields={fields} set={set} number="" collectionLabel={collectionLabel} onClear={onClear} wording={wording} />
    </div>
  );
}

interface Wording { match: string; empty: string }

function Group({ group, fields, set, number, collectionLabel, onClear, wording }: {
  group: GroupNode;
  fields: FilterField[];
  set(id: string, next: FilterNode | null): void;
  number: string;
  collectionLabel: string;
  onClear?: () => void;
  wording?: Wording;
}) {
  const nested = number !== '';
  const add = (node: FilterNode): void => set(group.id, { ...group, children: [...group.children, node] });
  const first = fields[0];
  const addRule = (): void => add(newRule(first?.path ?? '', first?.type ?? 'string'));
  const label = nested ? `Group ${number}` : 'All conditions';
  return (
    <div role="group" aria-label={label} className={nested ? 'filter-group nested' : 'filter-group'}>
      <div className="filter-group-head">
        <label className="filter-logic">
          <span>{nested ? 'Group: match' : wording?.match ?? 'Show items that match'}</span>
          <select value={group.logic} onChange={(e) => set(group.id, { ...group, logic: e.target.value as GroupNode['logic'] })}
            aria-label={nested ? `Group ${number}: match` : 'Match'}>
            <option value="_and">all of these conditions</option>
            <option value="_or">any of these conditions</option>
          </select>
        </label>
        {nested && <button type="button" className="btn btn-small btn-ghost" onClick={() => set(group.id, null)}>Remove group {number}</button>}
      </div>
      {group.children.length === 0 ? (
        <p className="muted filter-empty">{nested ? 'This group has no conditions yet.' : wording?.empty ?? `No conditions: every item of ${collectionLabel} is shown.`}</p>
      ) : (
        <ol className="filter-children">
          {group.children.map((child, i) => {
            const n = nested ? `${number}.${i + 1}` : String(i + 1);
            return (
              <li key={child.id}>
                {i > 0 && <span className="filter-joiner" aria-hidden="true">{group.logic === '_and' ? 'and' : 'or'}</span>}
                {child.kind === 'group'
                  ? <Group group={child} fields={fields} set={set} number={n} collectionLabel={collectionLabel} />
                  : <Rule rule={child} fields={fields} set={set} number={n} />}
              </li>
            );
          })}
        </ol>
      )}
      <div className="filter-actions">
        <button type="button" className="btn btn-small" onClick={addRule} disabled={!first}>+ Add condition{nested ? ` to group ${number}` : ''}</button>
        <button type="button" className="btn btn-small btn-ghost" onClick={() => add({ ...emptyGroup(group.logic === '_and' ? '_or' : '_and'), children: first ? [newRule(first.path, first.type)] : [] })}>
          + Add group{nested ? ` to group ${number}` : ''}
        </button>
        {onClear && <button type="button" className="btn btn-small btn-ghost filter-clear" onClick={onClear}>Clear filter</button>}
      </div>
    </div>
  );
}

function Rule({ rule, fields, set, number }: { rule: RuleNode; fields: FilterField[]; set(id: string, next: FilterNode | null): void; number: string }) {
  const field = fields.find((f) => f.path === rule.path);
  const type = field?.type ?? 'string';
  const ops = operatorsFor(type);
  const operand = operatorInfo(rule.op).operand;
  const own = fields.filter((f) => f.via === null);
  const vias = [...new Set(fields.filter((f) => f.via !== null).map((f) => f.via as string))];
  const update = (patch: Partial<RuleNode>): void => set(rule.id, { ...rule, ...patch });

  const changeField = (path: string): void => {
    const next = fields.find((f) => f.path === path);
    const nextOps = operatorsFor(next?.type ?? 'string');
    const op = nextOps.some((o) => o.op === rule.op) ? rule.op : nextOps[0]?.op ?? '_eq';
    update({ path, op, value: valueFor(op, '') });
  };
  return (
    <div role="group" aria-label={`Condition ${number}`} className="filter-rule">
      <select aria-label="Field" value={rule.path} onChange={(e) => changeField(e.target.value)} className="filter-field">
        {!field && <option value={rule.path}>{rule.path ? titleOf(rule.path) : 'Choose a field'}</option>}
        <optgroup label="Fields">
          {own.map((f) => <option key={f.path} value={f.path}>{f.label}</option>)}
        </optgroup>
        {vias.map((via) => (
          <optgroup key={via} label={`${via} →`}>
            {fields.filter((f) => f.via === via).map((f) => <option key={f.path} value={f.path}>{f.label}</option>)}
          </optgroup>
        ))}
      </select>
      <select aria-label="Operator" value={rule.op} onChange={(e) => update({ op: e.target.value, value: valueFor(e.target.value, rule.value) })} className="filter-op">
        {!ops.some((o) => o.op === rule.op) && <option value={rule.op}>{operatorInfo(rule.op).label}</option>}
        {ops.map((o) => <option key={o.op} value={o.op}>{o.label}</option>)}
      </select>
      <div className="filter-value">
        {operand === 'one' && <ValueInput field={field} value={String(rule.value ?? '')} label="Value" onChange={(v) => update({ value: v })} />}
        {operand === 'two' && (
          <>
            <ValueInput field={field} value={String((rule.value as string[])[0] ?? '')} label="From" onChange={(v) => update({ value: [v, (rule.value as string[])[1] ?? ''] })} />
            <span className="muted">and</span>
            <ValueInput field={field} value={String((rule.value as string[])[1] ?? '')} label="To" onChange={(v) => update({ value: [(rule.value as string[])[0] ?? '', v] })} />
          </>
        )}
        {operand === 'list' && <ListInput value={rule.value as string[]} onChange={(v) => update({ value: v })} />}
      </div>
      <button type="button" className="btn btn-ghost icon-btn" aria-label={`Remove condition ${number}`} title="Remove condition" onClick={() => set(rule.id, null)}>✕</button>
    </div>
  );
}

const DATE_INPUT: Record<string, string> = { date: 'date', time: 'time', dateTime: 'datetime-local', timestamp: 'datetime-local' };
const NUMBER_TYPES = new Set(['integer', 'bigInteger', 'float', 'decimal']);

function dynamicKind(field: FilterField | undefined): 'user' | 'date' | null {
  if (!field) return null;
  if (DATE_INPUT[field.type] && field.type !== 'time') return 'date';
  if (field.related === 'svc_users' || field.type === 'uuid') return 'user';
  return null;
}

function ValueInput({ field, value, label, onChange }: { field: FilterField | undefined; value: string; label: string; onChange(v: string): void }) {
  const kind = dynamicKind(field);
  const dynamic = value.startsWith('$') ? dynamicLabel(value) : null;
  const type = field?.type ?? 'string';
  let input;
  if (dynamic) {
    input = <span className="badge filter-dynamic" aria-label={`${label}: ${dynamic}`}>{dynamic}</span>;
  } else if (type === 'boolean') {
    input = (
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose…</option>
        <option value="true">Yes (true)</option>
        <option value="false">No (false)</option>
      </select>
    );
  } else {
    const inputType = DATE_INPUT[type] ?? (NUMBER_TYPES.has(type) ? 'number' : 'text');
    // Keyed by type: a field change from a date to a number gets a fresh input (the browser clears a value its new
    // type cannot hold, and the old element's value tracking would miss the next edit).
    input = <input key={inputType} aria-label={label} type={inputType} step={inputType === 'number' ? 'any' : undefined} value={value} onChange={(e) => onChange(e.target.value)} />;
  }
  return (
    <span className="filter-input">
      {input}
      {kind && (
        <select aria-label={`${label}: dynamic value`} className="filter-dynamic-pick" value={dynamic ? value : ''}
          onChange={(e) => onChange(e.target.value)}>
          <option value="">{dynamic ? 'Fixed value' : 'Fixed'}</option>
          {DYNAMIC_VALUES.filter((d) => d.types === kind).map((d) => <option key={d.value} value={d.value}>{d.label} ({d.value})</option>)}
        </select>
      )}
    </span>
  );
}

function ListInput({ value, onChange }: { value: string[]; onChange(v: string[]): void }) {
  const [text, setText] = useState(() => value.join(', '));
  return (
    <span className="filter-input">
      <input aria-label="Values, separated by commas" value={text} placeholder="a, b, c"
        onChange={(e) => { setText(e.target.value); onChange(e.target.value.split(',').map((s) => s.trim()).filter((s) => s !== '')); }} />
    </span>
  );
}
