/** The designer's pickers: a role from the roles the caller may read (a select), a person or a notification
 * template found by a search on the server (a few results at a time), and a field of the workflow's collection.
 * A value the caller cannot see (a role outside their permissions, say) stays and is named by its id. */
import { useId, useState, type ReactNode } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { messageOf } from '../../api/errors.ts';
import { useDebounced } from '../../content/list/useDebounced.ts';
import { titleOf, type Field } from '../../content/schema.ts';
import {
  personName, searchPeople, searchTemplates, seenPeople, templateQuery, type Person, type RoleOption, type TemplateOption,
} from './data.ts';

export function RoleSelect({ label, value, onChange, roles, error, invalid }: {
  label: string;
  value: string;
  onChange(id: string): void;
  roles: { data?: RoleOption[]; error: unknown };
  error?: string;
  invalid?: boolean;
}) {
  const id = useId();
  const list = roles.data ?? [];
  const known = list.some((r) => r.id === value);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={invalid || Boolean(error) || undefined}
        aria-describedby={error ? `${id}-error` : undefined}>
        <option value="">Choose a role…</option>
        {value && !known && <option value={value}>Role {value.slice(0, 8)}… (not visible to you)</option>}
        {list.map((r) => <option key={r.id} value={r.id}>{r.name}</option>)}
      </select>
      {roles.error !== null && roles.error !== undefined && <span className="field-note">The roles could not be listed: {messageOf(roles.error)}</span>}
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}

interface Found { id: string; title: string; detail: string }

/** A value found by typing: the chosen one with a Change button, or a search box with the matches under it. */
function SearchPicker({ label, noun, chosen, onPick, search, error }: {
  label: string;
  noun: string;
  /** The current value, described; null when none is chosen. */
  chosen: ReactNode | null;
  onPick(found: Found | null): void;
  search: { key: string; run(term: string, signal: AbortSignal): Promise<Found[]> };
  error?: string;
}) {
  const id = useId();
  const [open, setOpen] = useState(chosen === null);
  const [term, setTerm] = useState('');
  const settled = useDebounced(term.trim(), 200);
  const results = useQuery({
    queryKey: ['workflows', 'search', search.key, settled],
    queryFn: ({ signal }) => search.run(settled, signal),
    enabled: open,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  const pick = (found: Found | null): void => {
    onPick(found);
    setOpen(found === null);
    setTerm('');
  };
  return (
    <div className="field wf-picker" role="group" aria-labelledby={`${id}-label`}>
      <span className="wf-label" id={`${id}-label`}>{label}</span>
      {chosen !== null && !open ? (
        <div className="wf-chosen">
          <span className="wf-chosen-text">{chosen}</span>
          <button type="button" className="btn btn-small" onClick={() => setOpen(true)} aria-label={`Change ${noun}`}>Change</button>
        </div>
      ) : (
        <>
          <input type="search" aria-label={`Find a ${noun}`} placeholder={`Search ${noun}s`} value={term} onChange={(e) => setTerm(e.target.value)}
            aria-invalid={Boolean(error) || undefined} aria-describedby={error ? `${id}-error` : undefined} autoComplete="off" />
          <div className="wf-results" aria-live="polite">
            {results.error ? <span className="field-error">{messageOf(results.error)}</span>
              : !results.data ? <span className="muted">Searching…</span>
                : results.data.length === 0 ? <span className="muted">{settled ? `No ${noun} matches “${settled}”.` : `No ${noun}s you may see.`}</span>
                  : (
                    <ul aria-label={`Matching ${noun}s`}>
                      {results.data.map((f) => (
                        <li key={f.id}>
                          <button type="button" className="wf-result" onClick={() => pick(f)}>
                            <span>{f.title}</span>{f.detail && <span className="muted">{f.detail}</span>}
                          </button>
                        </li>
                      ))}
                    </ul>
                  )}
          </div>
          {chosen !== null && <button type="button" className="btn btn-small btn-ghost" onClick={() => setOpen(false)}>Keep {noun === 'user' ? 'the chosen user' : `the chosen ${noun}`}</button>}
        </>
      )}
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}

const personFound = (p: Person): Found => ({ id: p.id, title: personName(p), detail: p.email && personName(p) !== p.email ? p.email : '' });

export function PersonPicker({ label, value, onChange, known, error }: {
  label: string;
  value: string;
  onChange(id: string): void;
  /** Names of the people the workflow already names. */
  known: Map<string, Person> | undefined;
  error?: string;
}) {
  const person = value ? known?.get(value) ?? seenPeople.get(value) : undefined;
  const chosen = !value ? null
    : person ? <>{personName(person)}{person.email && personName(person) !== person.email && <span className="muted"> · {person.email}</span>}</>
      : <span className="mono">User {value.slice(0, 8)}…</span>;
  return (
    <SearchPicker label={label} noun="user" chosen={chosen} error={error}
      search={{ key: 'people', run: async (term, signal) => (await searchPeople(term, signal)).map(personFound) }}
      onPick={(f) => onChange(f?.id ?? '')} />
  );
}

const templateFound = (t: TemplateOption): Found => ({ id: t.id, title: t.name || t.id, detail: t.status === 'published' ? t.id : `${t.id} · ${t.status}` });

export function TemplatePicker({ value, onChange, error }: { value: string; onChange(id: string): void; error?: string }) {
  const [picked, setPicked] = useState<Found | null>(null);
  const template = useQuery({ ...templateQuery(value), enabled: Boolean(value) && picked?.id !== value });
  const info = picked?.id === value ? picked : template.data ? templateFound(template.data) : null;
  const chosen = !value ? null
    : info ? <>{info.title}<span className="muted"> · {info.detail}</span></>
      : <span className="mono">{value}</span>;
  return (
    <div className="wf-template">
      <SearchPicker label="Template" noun="template" chosen={chosen} error={error}
        search={{ key: 'templates', run: async (term, signal) => (await searchTemplates(term, signal)).map(templateFound) }}
        onPick={(f) => { setPicked(f); onChange(f?.id ?? ''); }} />
      {value && <button type="button" className="btn btn-small btn-ghost" onClick={() => { setPicked(null); onChange(''); }}>Send without a template</button>}
      {info && template.data && template.data.status !== 'published' && (
        <p className="field-note">This template is {template.data.status}: publish it before the workflow runs this step.</p>
      )}
    </div>
  );
}

/** A field of the collection; user fields first (those relating to users, and uuid fields). */
export function FieldSelect({ label, value, onChange, fields, userFields, error, note, placeholder = 'Choose a field…' }: {
  label: string;
  value: string;
  onChange(field: string): void;
  fields: Field[];
  /** Names of fields that hold a user (relations to users). */
  userFields?: Set<string>;
  error?: string;
  note?: string;
  placeholder?: string;
}) {
  const id = useId();
  const users = userFields ? fields.filter((f) => userFields.has(f.field)) : [];
  const others = fields.filter((f) => !users.includes(f));
  const option = (f: Field) => <option key={f.field} value={f.field}>{titleOf(f.field)} ({f.field})</option>;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={Boolean(error) || undefined}
        aria-describedby={[note ? `${id}-note` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}>
        <option value="">{placeholder}</option>
        {value && !fields.some((f) => f.field === value) && <option value={value}>{value} (not in the collection)</option>}
        {users.length > 0 ? (
          <>
            <optgroup label="Fields holding a user">{users.map(option)}</optgroup>
            <optgroup label="Other fields">{others.map(option)}</optgroup>
          </>
        ) : others.map(option)}
      </select>
      {note && <span className="field-note" id={`${id}-note`}>{note}</span>}
      {error && <span className="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  );
}
