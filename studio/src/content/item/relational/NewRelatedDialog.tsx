/** Creating a related item in place, for an O2M or M2M list: a small form of the related collection's own fields
 * (the ones the caller may create; relations and the link back to this item are left out). The new item is sent
 * with the parent's save, in the same request (Directus' nested create). */
import { useId, useMemo, useState } from 'react';
import { fieldAllowed, fieldsOf, titleOf } from '../../schema.ts';
import type { EditorContext } from '../ItemPage.tsx';
import { fieldState } from '../conditions.ts';
import { FieldInput } from '../FieldInput.tsx';
import { FormField } from '../FormField.tsx';
import { infoOf, isEmpty } from '../model.ts';
import { useModal } from '../../../ui/use-modal.ts';

type Row = Record<string, unknown>;

const SCALAR = new Set(['string', 'textarea', 'markdown', 'html', 'number', 'boolean', 'date', 'time', 'datetime', 'timestamp', 'uuid', 'json', 'csv', 'select']);

export function NewRelatedDialog({ open, collection, ctx, leaveOut, onCreate, onClose }: {
  open: boolean;
  collection: string;
  ctx: EditorContext;
  /** Fields the relation fills (the link back to the parent, the sort field). */
  leaveOut: (string | null | undefined)[];
  onCreate(row: Row): void;
  onClose(): void;
}) {
  const ref = useModal(open, () => { setValues({}); setErrors({}); setLocalErrors({}); });
  const titleId = useId();
  const [values, setValues] = useState<Row>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const infos = useMemo(() => fieldsOf(ctx.allFields, collection)
    .map((f) => infoOf(f, ctx.relations))
    .filter((i) => SCALAR.has(i.kind) && !i.field.schema?.is_primary_key && !leaveOut.includes(i.field.field) && !i.field.meta?.hidden
      && fieldAllowed(ctx.perms, ctx.admin, collection, 'create', i.field.field)), [ctx, collection, leaveOut]);


  const add = () => {
    const errs: Record<string, string> = { ...localErrors };
    for (const i of infos) {
      const state = fieldState(i.field, values);
      if (!state.hidden && state.required && isEmpty(values[i.field.field]) && i.field.schema?.default_value == null) errs[i.field.field] = 'This field is required.';
    }
    setErrors(errs);
    if (Object.keys(errs).length > 0) {
      const first = infos.find((i) => errs[i.field.field]);
      if (first) document.getElementById(`new-${collection}-${first.field.field}`)?.focus();
      return;
    }
    onCreate(Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)));
  };

  return (
    <dialog ref={ref} className="item-new-related" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      {open && (
        // Not a <form>: the dialog sits inside the item's form. Enter in a one-line input adds.
        <div onKeyDown={(e) => {
          const t = e.target as HTMLElement;
          if (e.key === 'Enter' && t instanceof HTMLInputElement && !['checkbox', 'button'].includes(t.type)) { e.preventDefault(); add(); }
        }}>
          <div className="dialog-head">
            <h2 id={titleId}>New item in {titleOf(collection)}</h2>
            <button type="button" className="btn btn-ghost icon-btn" aria-label="Close" onClick={onClose}>×</button>
          </div>
          <div className="dialog-body">
            {infos.length === 0 ? <p className="muted">This collection has no fields you can fill in here.</p> : (
              <div className="form-grid">
                {infos.map((info) => {
                  const f = info.field;
                  const state = fieldState(f, values);
                  if (state.hidden) return null;
                  const error = errors[f.field] !== localErrors[f.field] ? errors[f.field] : undefined;
                  const full = f.meta?.width === 'full' || f.meta?.width === 'fill' || ['textarea', 'markdown', 'html', 'json'].includes(info.kind);
                  return (
                    <FormField key={f.field} info={info} required={state.required} note={f.meta?.note} error={error} full={full} idPrefix={`new-${collection}-`}>
                      {({ id, describedBy }) => (
                        <FieldInput info={info} id={id} value={values[f.field] ?? (f.schema?.default_value ?? undefined)} isNew hasStored={false}
                          disabled={state.readonly} required={state.required} invalid={Boolean(error)} describedBy={describedBy}
                          onChange={(v) => { setValues((prev) => ({ ...prev, [f.field]: v })); setErrors(({ [f.field]: _gone, ...rest }) => rest); }}
                          onLocalError={(m) => setLocalErrors((prev) => {
                            if (m === null) { const { [f.field]: _x, ...rest } = prev; return rest; }
                            return { ...prev, [f.field]: m };
                          })} />
                      )}
                    </FormField>
                  );
                })}
              </div>
            )}
          </div>
          <div className="dialog-foot">
            <span className="muted dialog-foot-note">Saved with this item.</span>
            <button type="button" className="btn" onClick={onClose}>Cancel</button>
            <button type="button" className="btn btn-primary" onClick={add}>Add</button>
          </div>
        </div>
      )}
    </dialog>
  );
}
