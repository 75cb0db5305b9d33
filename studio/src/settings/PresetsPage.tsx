/** /settings/assets: which image transforms /assets may make (settings.storage_asset_transform: any, only the
 * presets, none) and the presets themselves (settings.storage_asset_presets: a key and its transform), with each
 * saved preset drawn from a chosen image through /assets/{id}?key=<preset>, as a website would ask for it. */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { settingsQuery, useSettingsForm, type AssetPreset, type Settings } from './data.ts';
import { FileChoice } from './FileChoice.tsx';
import { SettingsCard } from './SettingsCard.tsx';
import { SettingsPage } from './SettingsPage.tsx';
import type { FieldErrors } from '../ui/form.tsx';

const FITS = [['cover', 'Cover'], ['contain', 'Contain'], ['inside', 'Inside'], ['outside', 'Outside'], ['fill', 'Fill']] as const;
const FORMATS = [['', 'As the original'], ['auto', 'Best the browser takes'], ['webp', 'WebP'], ['avif', 'AVIF'], ['jpeg', 'JPEG'], ['png', 'PNG']] as const;
const KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PREVIEW_KEY = 'studio.preset-preview-file';

export default function PresetsPage() {
  const settings = useQuery(settingsQuery);
  return <SettingsPage title="Image presets" record={settings} loading="Loading the settings">{(stored) => <PresetsForm stored={stored} />}</SettingsPage>;
}

function PresetsForm({ stored }: { stored: Settings }) {
  const form = useSettingsForm(stored, ['storage_asset_transform', 'storage_asset_presets'] as const);
  const presets = form.value('storage_asset_presets') ?? [];
  const policy = form.value('storage_asset_transform') ?? 'all';
  const [sample, setSample] = useState<string | null>(() => sessionStorage.getItem(PREVIEW_KEY));
  const setPresets = (next: AssetPreset[]): void => form.set('storage_asset_presets', next.length ? next : null);
  const change = (i: number, patch: Partial<AssetPreset>): void => {
    setPresets(presets.map((p, j) => {
      if (j !== i) return p;
      const merged: Record<string, unknown> = { ...p, ...patch };
      for (const k of Object.keys(merged)) if (merged[k] === undefined || merged[k] === '') delete merged[k];
      return merged as unknown as AssetPreset;
    }));
  };
  const num = (v: string): number | undefined => (v === '' ? undefined : Number(v));

  function check(): FieldErrors {
    const keys = new Set<string>();
    for (const [i, p] of presets.entries()) {
      const where = `Preset ${i + 1}`;
      if (!KEY.test(p.key ?? '')) return { storage_asset_presets: `${where}: the key takes lowercase letters, digits, “-” and “_”.` };
      if (p.key.startsWith('system-')) return { storage_asset_presets: `${where}: keys starting with “system-” belong to the built-in presets.` };
      if (keys.has(p.key)) return { storage_asset_presets: `Two presets have the key “${p.key}”.` };
      keys.add(p.key);
      for (const dim of ['width', 'height', 'quality'] as const) {
        const v = p[dim];
        if (v !== undefined && (!Number.isInteger(v) || v < 1 || (dim === 'quality' && v > 100))) {
          return { storage_asset_presets: `Preset “${p.key}”: ${dim} must be a whole number${dim === 'quality' ? ' from 1 to 100' : ' of at least 1'}.` };
        }
      }
    }
    return {};
  }

  const savedKeys = new Set((stored.storage_asset_presets ?? []).map((p) => p.key));
  return (
    <div className="settings-cards">
      <SettingsCard title="Image presets" wide dirty={form.dirty} busy={form.busy} saved={form.saved} error={form.error} onDiscard={form.discard}
        onSave={() => void form.save(check)}
        description={<>A website asks for <span className="mono">/assets/&lt;file&gt;?key=card</span> and gets the image as the preset <span className="mono">card</span> says.</>}>
        <fieldset className="settings-radios">
          <legend>Transformations a request may ask for</legend>
          {([['all', 'Any size or format, and the presets'], ['presets', 'Only the presets below'], ['none', 'None: originals only (the Studio\u2019s own thumbnails still work)']] as const).map(([v, label]) => (
            <label key={v} className="check-line">
              <input type="radio" name="asset-transform" value={v} checked={policy === v} onChange={() => form.set('storage_asset_transform', v)} />
              {label}
            </label>
          ))}
        </fieldset>
        {presets.length === 0 ? <p className="muted">No presets yet.</p> : (
          <div className="table-wrap">
            <table className="grid settings-table preset-table">
              <caption className="visually-hidden">Presets</caption>
              <thead>
                <tr><th scope="col">Key</th><th scope="col">Fit</th><th scope="col">Width</th><th scope="col">Height</th><th scope="col">Quality</th><th scope="col">Format</th>
                  <th scope="col">Never enlarge</th><th scope="col">Preview</th><th scope="col"><span className="visually-hidden">Remove</span></th></tr>
              </thead>
              <tbody>
                {presets.map((p, i) => {
                  const name = `preset ${i + 1}`;
                  return (
                    <tr key={i}>
                      <td><input className="mono" aria-label={`Key of ${name}`} value={p.key ?? ''} onChange={(e) => change(i, { key: e.target.value })} /></td>
                      <td>
                        <select aria-label={`Fit of ${name}`} value={p.fit ?? 'cover'} onChange={(e) => change(i, { fit: e.target.value as AssetPreset['fit'] })}>
                          {FITS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
                        </select>
                      </td>
                      <td><input type="number" min={1} aria-label={`Width of ${name}`} value={p.width ?? ''} onChange={(e) => change(i, { width: num(e.target.value) })} /></td>
                      <td><input type="number" min={1} aria-label={`Height of ${name}`} value={p.height ?? ''} onChange={(e) => change(i, { height: num(e.target.value) })} /></td>
                      <td><input type="number" min={1} max={100} aria-label={`Quality of ${name}`} value={p.quality ?? ''} onChange={(e) => change(i, { quality: num(e.target.value) })} /></td>
                      <td>
                        <select aria-label={`Format of ${name}`} value={p.format ?? ''} onChange={(e) => change(i, { format: (e.target.value || undefined) as AssetPreset['format'] })}>
                          {FORMATS.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
                        </select>
                      </td>
                      <td className="center"><input type="checkbox" aria-label={`Never enlarge with ${name}`} checked={p.withoutEnlargement === true}
                        onChange={(e) => change(i, { withoutEnlargement: e.target.checked || undefined })} /></td>
                      <td className="preset-preview">
                        {sample && savedKeys.has(p.key) && !form.dirty
                          ? <img src={`/assets/${encodeURIComponent(sample)}?key=${encodeURIComponent(p.key)}`} alt={`The sample image through ${p.key}`} />
                          : <span className="muted">{sample ? 'After saving' : '—'}</span>}
                      </td>
                      <td><button type="button" className="btn btn-small btn-ghost" aria-label={`Remove ${name}`} onClick={() => setPresets(presets.filter((_, j) => j !== i))}>Remove</button></td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
        {presets.length > 0 && (
          <p className="field-note">Fit: <strong>cover</strong> crops to fill the size, <strong>contain</strong> fits inside and pads, <strong>inside</strong> fits inside
            without padding, <strong>outside</strong> covers without cropping, <strong>fill</strong> stretches.</p>
        )}
        {form.errors.storage_asset_presets && <p className="field-error" role="alert">{form.errors.storage_asset_presets}</p>}
        <div className="actions-row">
          <button type="button" className="btn" onClick={() => setPresets([...presets, { key: '', fit: 'cover' }])}>Add preset</button>
        </div>
        <FileChoice label="Sample image" value={sample} onChange={(id) => {
          setSample(id);
          if (id) sessionStorage.setItem(PREVIEW_KEY, id); else sessionStorage.removeItem(PREVIEW_KEY);
        }} note="Saved presets are drawn from it in the Preview column, exactly as a website would get them." />
      </SettingsCard>
    </div>
  );
}
