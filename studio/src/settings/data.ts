/** The settings singleton as the Settings screens read and write it (GET/PATCH /settings), and a form over a group of
 * its fields: each group (identity, sign-in page, security...) is edited and saved on its own, sends only what
 * changed, shows the server's refusals on the fields they name, and keeps what was typed when a save fails. */
import { useState } from 'react';
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import { request } from '../api/client.ts';
import { projectQuery } from '../app/project.tsx';
import { splitError, type FieldErrors } from '../ui/form.tsx';

export interface Settings {
  id: number;
  project_name: string;
  project_url: string | null;
  project_color: string;
  project_descriptor: string | null;
  project_logo: string | null;
  public_foreground: string | null;
  public_background: string | null;
  public_note: string | null;
  custom_css: string | null;
  auth_login_attempts: number | null;
  auth_password_policy: string | null;
  storage_asset_transform: 'all' | 'none' | 'presets' | null;
  storage_asset_presets: AssetPreset[] | null;
  storage_default_folder: string | null;
  public_registration: boolean;
  public_registration_verify_email: boolean;
  public_registration_role: string | null;
  public_registration_email_filter: unknown;
  default_appearance: 'auto' | 'light' | 'dark';
}

export interface AssetPreset {
  key: string;
  fit?: 'cover' | 'contain' | 'inside' | 'outside' | 'fill';
  width?: number;
  height?: number;
  quality?: number;
  format?: 'auto' | 'jpeg' | 'jpg' | 'png' | 'webp' | 'avif' | 'tiff';
  withoutEnlargement?: boolean;
  transforms?: unknown[];
}

export const settingsQuery = queryOptions({
  queryKey: ['settings'],
  queryFn: ({ signal }) => request<Settings>('GET', '/settings', { signal }),
});

type Values = Record<string, unknown>;

/** Edits over the stored values of a group of project settings; `save` PATCHes the changed ones. */
export function useSettingsForm<K extends keyof Settings>(stored: Settings, fields: readonly K[]) {
  const client = useQueryClient();
  return useFieldsForm(stored, fields, async (body) => {
    const next = await request<Settings>('PATCH', '/settings', { body });
    client.setQueryData(settingsQuery.queryKey, next);
    // The Studio's own face (name, color, logo, custom CSS) follows at once.
    await client.invalidateQueries({ queryKey: projectQuery.queryKey });
  });
}

/** Edits over the stored values of some fields of a settings record; `save` hands the changed ones to `write`. */
export function useFieldsForm<T extends object, K extends keyof T>(stored: T, fields: readonly K[], write: (body: Values) => Promise<void>) {
  const [edits, setEdits] = useState<Partial<Pick<T, K>>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const value = <F extends K>(field: F): T[F] => (field in edits ? (edits as Values)[field as string] : stored[field]) as T[F];
  const changed = Object.keys(edits).filter((f) => JSON.stringify((edits as Values)[f]) !== JSON.stringify((stored as Values)[f]));
  function set<F extends K>(field: F, next: T[F]): void {
    setEdits((e) => ({ ...e, [field]: next }));
    setErrors(({ [field as string]: _gone, ...rest }) => rest);
    setSaved(false);
  }
  /** Sends the changed fields; a local check may refuse first. */
  async function save(check?: () => FieldErrors): Promise<boolean> {
    const local = check?.() ?? {};
    if (Object.keys(local).length > 0) {
      setErrors(local);
      setError(null);
      return false;
    }
    if (busy || changed.length === 0) return false;
    setBusy(true);
    setError(null);
    try {
      await write(Object.fromEntries(changed.map((f) => [f, (edits as Values)[f]])));
      setEdits({});
      setErrors({});
      setSaved(true);
      return true;
    } catch (err) {
      const split = splitError(err, fields as readonly string[]);
      setErrors(split.fields);
      setError(split.rest);
      return false;
    } finally {
      setBusy(false);
    }
  }
  function discard(): void {
    setEdits({});
    setErrors({});
    setError(null);
  }
  return { value, set, save, discard, dirty: changed.length > 0, errors, error, busy, saved };
}

/** The contrast ratio of white text on a hex color (WCAG 2), or null for a value that is not a hex color. */
export function whiteContrast(hex: string): number | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) return null;
  const full = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1];
  const channel = (i: number): number => {
    const v = parseInt(full.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  return 1.05 / (luminance + 0.05);
}

export const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function when(value: string | null | undefined): string {
  if (!value) return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : DATE_TIME.format(d);
}
