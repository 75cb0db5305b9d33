/** How each field of a collection appears in a generated schema: which collections and fields exist for the
 * caller, what kind each field is, and its scalar type. */
import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLString, type GraphQLScalarType, type GraphQLType } from 'graphql/index.js';
import type { PermissionAction, PermissionSet, ResolvedPermission } from '../access/permissions.ts';
import { relationOf } from '../schema/relations.ts';
import type { CollectionOverview, FieldOverview, SchemaOverview } from '../schema/types.ts';
import { isGraphqlName, RESERVED_TYPE_NAMES, typeNamesOf } from './names.ts';
import { GraphQLJSON } from './scalars.ts';

/** svc_ tables never served (Directus' hidden system tables): session and migration bookkeeping. */
const HIDDEN_SYSTEM = new Set(['svc_sessions', 'svc_impersonation_sessions', 'svc_migrations', 'svc_migrations_lock']);

export type FieldKind =
  | { kind: 'column'; field: FieldOverview }
  | { kind: 'm2o'; field: FieldOverview; related: string }
  | { kind: 'o2m'; field: FieldOverview; related: string };

export interface SchemaScope {
  schema: SchemaOverview;
  permissions: PermissionSet;
  /** /graphql/system: svc_ collections only; else user collections only. */
  system: boolean;
  admin: boolean;
}

/** The collections a caller's schema holds: readable, valid names, in the endpoint's half, no name clashes. */
export function exposedCollections(scope: SchemaScope): Map<string, CollectionOverview> {
  const claimed = new Set(RESERVED_TYPE_NAMES);
  const out = new Map<string, CollectionOverview>();
  for (const name of Object.keys(scope.schema.collections).sort()) {
    const c = scope.schema.collections[name];
    if (c.folder || !c.primary || c.system !== scope.system || HIDDEN_SYSTEM.has(name)) continue;
    if (!isGraphqlName(name) || !isGraphqlName(c.primary)) continue;
    if (!scope.permissions.get(name, 'read')) continue;
    const names = typeNamesOf(name);
    if (names.some((n) => claimed.has(n))) continue;
    for (const n of names) claimed.add(n);
    out.set(name, c);
  }
  return out;
}

export function permitted(perm: ResolvedPermission | null, field: string): boolean {
  return perm !== null && (perm.fields === null || perm.fields.has(field));
}

/** The fields of `c` that `action` permits, as the generated types show them. Relations to collections
 * outside the schema: M2O falls back to its key when the related collection is readable but served by the
 * other endpoint (user <-> system), and is left out when it is not readable; O2M is left out. A2O fields
 * are JSON holding the raw key. */
export function fieldKinds(scope: SchemaScope, exposed: Map<string, CollectionOverview>, c: CollectionOverview, action: PermissionAction): FieldKind[] {
  const perm = scope.permissions.get(c.collection, action);
  if (!perm) return [];
  const out: FieldKind[] = [];
  for (const field of Object.values(c.fields)) {
    if (!isGraphqlName(field.field) || !permitted(perm, field.field)) continue;
    const relation = relationOf(scope.schema, c.collection, field.field);
    if (relation?.kind === 'm2o') {
      if (exposed.has(relation.related)) out.push({ kind: 'm2o', field, related: relation.related });
      else if (scope.permissions.get(relation.related, 'read')) out.push({ kind: 'column', field });
      continue;
    }
    if (relation?.kind === 'o2m') {
      if (exposed.has(relation.related)) out.push({ kind: 'o2m', field, related: relation.related });
      continue;
    }
    if (field.alias) continue;
    out.push({ kind: 'column', field });
  }
  return out;
}

/** The scalar of a column on the wire (SPEC.md wire types; primary keys are ID). */
export function scalarOf(field: FieldOverview): GraphQLScalarType | GraphQLList<GraphQLType> {
  if (field.isPrimaryKey) return GraphQLID;
  switch (field.type) {
    case 'integer': return GraphQLInt;
    case 'float': return GraphQLFloat;
    case 'boolean': return GraphQLBoolean;
    case 'json': return GraphQLJSON;
    case 'csv': return new GraphQLList(GraphQLString);
    default: return GraphQLString;
  }
}

export const NUMERIC = new Set(['integer', 'bigInteger', 'float', 'decimal']);
