/** What each relation wizard makes, as a list of API steps with their undo (api.ts runSteps): the API makes a field,
 * a junction collection and a relation in separate requests, so a failing later step removes what the earlier ones
 * made. Directus' shapes: an M2O is a foreign key field plus a relation; an O2M is the same relation seen from the
 * other side with an alias (one_field); an M2M is a junction with two foreign keys and two relations pointing at
 * each other through junction_field; an M2A junction has the item key and the collection name instead of the second
 * foreign key (one_allowed_collections, one_collection_field). */
import { api, type Step } from '../api.ts';
import { foreignKeyType } from '../catalog.ts';
import type { FullField } from '../model.ts';

export type RelationKind = 'm2o' | 'o2m' | 'm2m' | 'm2a';
export type OnDelete = 'SET NULL' | 'CASCADE' | 'NO ACTION';

/** A step, and the form control whose name it makes (its name error belongs there). */
export interface PlannedStep extends Step {
  input?: string;
  /** What the person reads in the "this creates" list. */
  creates: string;
}

function keyColumn(field: string, pk: FullField | undefined, meta: Record<string, unknown>): Record<string, unknown> {
  const { type, maxLength } = foreignKeyType(pk);
  return { field, type, schema: maxLength ? { max_length: maxLength } : {}, meta };
}

const junctionId = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true, interface: 'input' } };

function fieldStep(collection: string, body: Record<string, unknown>, input: string, creates: string): PlannedStep {
  const field = body.field as string;
  return {
    label: `the field ${collection}.${field}`, input, creates,
    run: () => api.createField(collection, body),
    undo: () => api.deleteField(collection, field),
  };
}

function relationStep(body: Record<string, unknown>, creates: string): PlannedStep {
  return { label: `the relation of ${body.collection as string}.${body.field as string}`, creates, run: () => api.createRelation(body) };
}

export interface M2OPlan { here: string; field: string; related: string; relatedPk: FullField | undefined; reverse: string | null; onDelete: OnDelete }

export function planM2O(p: M2OPlan): PlannedStep[] {
  const file = p.related === 'svc_files';
  const steps: PlannedStep[] = [
    fieldStep(p.here, keyColumn(p.field, p.relatedPk, {
      interface: file ? 'file' : 'select-dropdown-m2o', special: [file ? 'file' : 'm2o'], display: 'related-values', width: 'half',
    }), 'field', `${p.here}.${p.field}: the key of an item of ${p.related}`),
  ];
  if (p.reverse) {
    steps.push(fieldStep(p.related, { field: p.reverse, type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m', width: 'full' } },
      'reverse', `${p.related}.${p.reverse}: the list of items of ${p.here} pointing at it`));
  }
  steps.push(relationStep({ collection: p.here, field: p.field, related_collection: p.related, meta: { one_field: p.reverse }, schema: { on_delete: p.onDelete } },
    `the relation ${p.here}.${p.field} → ${p.related}`));
  return steps;
}

export interface O2MPlan {
  here: string; field: string; hereFields: FullField[]; related: string; relatedFields: FullField[]; foreignKey: string;
  sortField: string | null; onDelete: OnDelete;
}

export function planO2M(p: O2MPlan): PlannedStep[] {
  const pk = p.hereFields.find((f) => f.schema?.is_primary_key);
  const steps: PlannedStep[] = [
    fieldStep(p.related, keyColumn(p.foreignKey, pk, { interface: 'select-dropdown-m2o', special: ['m2o'], display: 'related-values', width: 'half' }),
      'foreignKey', `${p.related}.${p.foreignKey}: the key of the item of ${p.here} each belongs to`),
  ];
  if (p.sortField && !p.relatedFields.some((f) => f.field === p.sortField)) {
    steps.push(fieldStep(p.related, { field: p.sortField, type: 'integer', schema: {}, meta: { hidden: true, interface: 'input' } },
      'sortField', `${p.related}.${p.sortField}: their order in the list`));
  }
  steps.push(fieldStep(p.here, { field: p.field, type: 'alias', meta: { special: ['o2m'], interface: 'list-o2m', width: 'full' } },
    'field', `${p.here}.${p.field}: the list of its items of ${p.related}`));
  steps.push(relationStep({
    collection: p.related, field: p.foreignKey, related_collection: p.here, meta: { one_field: p.field, sort_field: p.sortField }, schema: { on_delete: p.onDelete },
  }, `the relation ${p.related}.${p.foreignKey} → ${p.here}`));
  return steps;
}

export interface M2MPlan {
  here: string; field: string; hereFields: FullField[]; related: string; relatedFields: FullField[]; junction: string;
  hereKey: string; relatedKey: string; sortField: string | null; reverse: string | null; group: string | null;
}

export function planM2M(p: M2MPlan): PlannedStep[] {
  const files = p.related === 'svc_files';
  const herePk = p.hereFields.find((f) => f.schema?.is_primary_key);
  const relatedPk = p.relatedFields.find((f) => f.schema?.is_primary_key);
  const fields = [
    junctionId,
    keyColumn(p.hereKey, herePk, { hidden: true }),
    keyColumn(p.relatedKey, relatedPk, { hidden: true }),
    ...(p.sortField ? [{ field: p.sortField, type: 'integer', schema: {}, meta: { hidden: true } }] : []),
  ];
  const steps: PlannedStep[] = [{
    label: `the junction collection ${p.junction}`, input: 'junction',
    creates: `${p.junction}: the junction, one row per link (${p.hereKey}, ${p.relatedKey}${p.sortField ? `, ${p.sortField}` : ''})`,
    run: () => api.createCollection({ collection: p.junction, schema: {}, meta: { hidden: true, icon: 'import_export', group: p.group }, fields }),
    undo: () => api.deleteCollection(p.junction),
  }];
  steps.push(fieldStep(p.here, { field: p.field, type: 'alias', meta: { special: [files ? 'files' : 'm2m'], interface: files ? 'files' : 'list-m2m', width: 'full' } },
    'field', `${p.here}.${p.field}: the list of linked items of ${p.related}`));
  if (p.reverse) {
    steps.push(fieldStep(p.related, { field: p.reverse, type: 'alias', meta: { special: ['m2m'], interface: 'list-m2m', width: 'full' } },
      'reverse', `${p.related}.${p.reverse}: the list of linked items of ${p.here}`));
  }
  steps.push(relationStep({
    collection: p.junction, field: p.hereKey, related_collection: p.here,
    meta: { one_field: p.field, junction_field: p.relatedKey, sort_field: p.sortField }, schema: { on_delete: 'CASCADE' },
  }, `the relation ${p.junction}.${p.hereKey} → ${p.here}`));
  steps.push(relationStep({
    collection: p.junction, field: p.relatedKey, related_collection: p.related,
    meta: { one_field: p.reverse, junction_field: p.hereKey }, schema: { on_delete: 'CASCADE' },
  }, `the relation ${p.junction}.${p.relatedKey} → ${p.related}`));
  return steps;
}

export interface M2APlan {
  here: string; field: string; hereFields: FullField[]; allowed: string[]; junction: string; hereKey: string; sortField: string | null; group: string | null;
}

export function planM2A(p: M2APlan): PlannedStep[] {
  const herePk = p.hereFields.find((f) => f.schema?.is_primary_key);
  const fields = [
    junctionId,
    keyColumn(p.hereKey, herePk, { hidden: true }),
    { field: 'item', type: 'string', schema: { max_length: 255 }, meta: { hidden: true } },
    { field: 'collection', type: 'string', schema: { max_length: 255 }, meta: { hidden: true } },
    ...(p.sortField ? [{ field: p.sortField, type: 'integer', schema: {}, meta: { hidden: true } }] : []),
  ];
  return [
    {
      label: `the junction collection ${p.junction}`, input: 'junction',
      creates: `${p.junction}: the junction, one row per link (${p.hereKey}, item, collection${p.sortField ? `, ${p.sortField}` : ''})`,
      run: () => api.createCollection({ collection: p.junction, schema: {}, meta: { hidden: true, icon: 'import_export', group: p.group }, fields }),
      undo: () => api.deleteCollection(p.junction),
    },
    fieldStep(p.here, { field: p.field, type: 'alias', meta: { special: ['m2a'], interface: 'list-m2a', width: 'full' } },
      'field', `${p.here}.${p.field}: the list of linked items of ${p.allowed.join(', ') || 'the allowed collections'}`),
    relationStep({
      collection: p.junction, field: 'item', related_collection: null,
      meta: { one_allowed_collections: p.allowed, one_collection_field: 'collection', junction_field: p.hereKey },
    }, `the relation ${p.junction}.item → any of ${p.allowed.join(', ') || '…'}`),
    relationStep({
      collection: p.junction, field: p.hereKey, related_collection: p.here,
      meta: { one_field: p.field, junction_field: 'item', sort_field: p.sortField }, schema: { on_delete: 'CASCADE' },
    }, `the relation ${p.junction}.${p.hereKey} → ${p.here}`),
  ];
}
