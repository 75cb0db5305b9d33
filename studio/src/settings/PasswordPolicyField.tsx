/** The password policy (settings.auth_password_policy, a regular expression every new password must match): a few
 * common rules by name, or a pattern of one's own, checked as a regular expression before it is sent. */
import { useId, useState } from 'react';

const PRESETS: { value: string; label: string }[] = [
  { value: '', label: 'No rule' },
  { value: '/^.{8,}$/', label: 'At least 8 characters' },
  { value: '/^.{12,}$/', label: 'At least 12 characters' },
  { value: '/(?=^.{8,}$)(?=.*\\d)(?=.*[a-z])(?=.*[A-Z])(?=.*[^\\w\\s]).*$/', label: 'Strong: 8 or more with upper and lower case, a digit and a symbol' },
];
const CUSTOM = '(custom)';

/** Why the policy cannot be used (as the server reads it: `/pattern/flags` or a bare pattern), or null. */
export function policyProblem(policy: string | null): string | null {
  if (!policy) return null;
  const wrapped = /^\/(.*)\/([a-z]*)$/s.exec(policy);
  try {
    new RegExp(wrapped ? wrapped[1] : policy, wrapped ? wrapped[2].replace(/[gy]/g, '') : '');
    return null;
  } catch (err) {
    return `This is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}.`;
  }
}

export function PasswordPolicyField({ value, onChange, error }: { value: string | null; onChange(v: string | null): void; error?: string }) {
  const id = useId();
  const known = PRESETS.some((p) => p.value === (value ?? ''));
  const [custom, setCustom] = useState(!known);
  const choice = custom ? CUSTOM : value ?? '';
  return (
    <div className="field form-field">
      <label htmlFor={`${id}-rule`}>Password rule</label>
      <select id={`${id}-rule`} value={choice} onChange={(e) => {
        if (e.target.value === CUSTOM) setCustom(true);
        else { setCustom(false); onChange(e.target.value || null); }
      }}>
        {PRESETS.map((p) => <option key={p.label} value={p.value}>{p.label}</option>)}
        <option value={CUSTOM}>A pattern of my own…</option>
      </select>
      {custom && (
        <>
          <label htmlFor={`${id}-pattern`}>Pattern</label>
          <input id={`${id}-pattern`} className="mono" value={value ?? ''} onChange={(e) => onChange(e.target.value || null)} spellCheck={false}
            placeholder="/^.{10,}$/" aria-invalid={error ? true : undefined} aria-describedby={`${id}-note${error ? ` ${id}-error` : ''}`} />
        </>
      )}
      <p className="field-note" id={`${id}-note`}>Applies to every new password: set by a user, an administrator, an invitation or a reset.</p>
      {error && <p className="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}
