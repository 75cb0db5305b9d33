/** A relational field in words for the field list and editor: its kind and where it points. */
import { relationFor } from '../../content/schema.ts';
import type { SchemaData } from '../DataModelModule.tsx';
import type { FullField } from '../model.ts';

export function relationSummary(data: SchemaData, f: FullField): { kind: string; text: string } | null {
  const rel = relationFor(data.relations, f.collection, f.field);
  if (!rel) return null;
  const r = rel.relation;
  switch (rel.kind) {
    case 'm2o': return { kind: 'Many-to-one', text: `→ ${r.related_collection}` };
    case 'file': return { kind: 'File', text: '→ svc_files' };
    case 'o2m': return { kind: 'One-to-many', text: `← ${r.collection}.${r.field}` };
    case 'm2m': return { kind: 'Many-to-many', text: `↔ ${rel.junction?.related_collection} through ${r.collection}` };
    case 'files': return { kind: 'Files', text: `↔ svc_files through ${r.collection}` };
    case 'm2a': {
      // The alias side (through a junction) or the junction's item field itself.
      const allowed = (rel.junction ?? r).meta?.one_allowed_collections ?? [];
      return { kind: 'Many-to-any', text: rel.junction ? `↔ ${allowed.join(', ')} through ${r.collection}` : `→ ${allowed.join(', ')}` };
    }
  }
}
