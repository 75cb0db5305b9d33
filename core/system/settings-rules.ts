/** What PATCH /settings refuses before anything is written, field by field (several at once, each with
 * `extensions.field`): a password policy that is not a regular expression (the policy would otherwise enforce
 * nothing, silently), asset presets that no asset request could use, a color that is not a hex color, a login
 * attempt limit below one, and an email domain list holding something other than domains. The column types and foreign keys
 * are the items service's to check. */
import { parseTransform } from '../assets/parse-transform.ts';
import { ErrorList, InvalidPayloadError, ServiceError } from '../errors.ts';

const PRESET_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const HEX_COLOR = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

function fieldError(field: string, message: string): ServiceError {
  return new InvalidPayloadError(message, { field });
}

/** A policy as auth/password-policy.ts reads it (`/pattern/flags` or a bare pattern): the reason it cannot be used. */
function policyProblem(policy: string): string | null {
  const wrapped = /^\/(.*)\/([a-z]*)$/s.exec(policy);
  try {
    // eslint-disable-next-line no-new
    new RegExp(wrapped ? wrapped[1] : policy, wrapped ? wrapped[2].replace(/[gy]/g, '') : '');
    return null;
  } catch (err) {
    return `The password policy is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}.`;
  }
}

function presetProblems(value: unknown, maxDimension: number): string | null {
  if (value === null) return null;
  if (!Array.isArray(value)) return 'Asset presets must be a list.';
  const keys = new Set<string>();
  for (const [i, preset] of value.entries()) {
    if (typeof preset !== 'object' || preset === null || Array.isArray(preset)) return `Preset ${i + 1} must be an object.`;
    const { key, ...options } = preset as Record<string, unknown>;
    if (typeof key !== 'string' || !PRESET_KEY.test(key)) return `Preset ${i + 1} needs a key of lowercase letters, digits, "-" or "_" (up to 64).`;
    if (key.startsWith('system-')) return `Preset key "${key}" is reserved for the built-in presets.`;
    if (keys.has(key)) return `Two presets have the key "${key}".`;
    keys.add(key);
    try {
      parseTransform(options, maxDimension);
    } catch (err) {
      return `Preset "${key}": ${(err as Error).message.replace(/^Invalid query parameter /, 'invalid ')}`;
    }
  }
  return null;
}

export function checkSettingsPayload(payload: Record<string, unknown>, maxDimension: number): void {
  const errors: ServiceError[] = [];
  const policy = payload.auth_password_policy;
  if (typeof policy === 'string' && policy !== '') {
    const problem = policyProblem(policy);
    if (problem) errors.push(fieldError('auth_password_policy', problem));
  }
  if ('storage_asset_presets' in payload) {
    const problem = presetProblems(payload.storage_asset_presets, maxDimension);
    if (problem) errors.push(fieldError('storage_asset_presets', problem));
  }
  const color = payload.project_color;
  if (color !== undefined && (typeof color !== 'string' || !HEX_COLOR.test(color))) {
    errors.push(fieldError('project_color', 'The project color must be a hex color such as #6644FF.'));
  }
  const attempts = payload.auth_login_attempts;
  if (attempts !== undefined && attempts !== null && (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 1)) {
    errors.push(fieldError('auth_login_attempts', 'Login attempts must be a whole number of at least 1 (or empty for no limit).'));
  }
  // A list of domains (SPEC.md); Directus' filter object over `email` is also taken (users/email-filter.ts).
  const domains = payload.public_registration_email_filter;
  if (Array.isArray(domains) || typeof domains === 'string' || typeof domains === 'number' || typeof domains === 'boolean') {
    const bad = !Array.isArray(domains) ? 'a list' : domains.find((d) => typeof d !== 'string' || !DOMAIN.test(d.replace(/^@/, '')));
    if (bad !== undefined) {
      errors.push(fieldError('public_registration_email_filter', bad === 'a list'
        ? 'Allowed email domains must be a list of domains.'
        : `"${String(bad).slice(0, 80)}" is not an email domain (such as example.com).`));
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new ErrorList(errors);
}
