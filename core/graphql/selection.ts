/** A root field's whole selection set (fragments, inline fragments, nested relations and their arguments)
 * compiled into ONE REST query: fields as dotted paths (`author.name`, `comments.id`) and nested arguments
 * as `deep` options. The read then runs as one statement, and nested fields resolve from its JSON by plain
 * property access: no resolver per row, no N+1. */
import {
  getArgumentValues, getDirectiveValues, getNamedType, GraphQLIncludeDirective, GraphQLObjectType, GraphQLSkipDirective,
  Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionSetNode,
} from 'graphql/index.js';
import { InvalidQueryError } from '../errors.ts';
import type { DeepQuery } from '../query/types.ts';
import { fieldMetaOf } from './context.ts';
import { restArgs } from './functions.ts';
import { stableKey } from './stable-key.ts';

export interface CompiledSelection {
  fields: string[];
  deep?: DeepQuery;
}

interface Walk {
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  fields: Set<string>;
  /** Arguments seen per relation path: one REST query holds one set per relation. */
  relationArgs: Map<string, string>;
}

function included(node: { directives?: readonly unknown[] } & Parameters<typeof getDirectiveValues>[1], variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

const DEEP_ARGS: Record<string, string> = { filter: '_filter', sort: '_sort', limit: '_limit', offset: '_offset', page: '_page', search: '_search' };

function deepOptions(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null || !(k in DEEP_ARGS)) continue;
    if (k === 'search' && v === '') continue;
    out[DEEP_ARGS[k]] = v;
  }
  return out;
}

function walk(w: Walk, type: GraphQLObjectType, set: SelectionSetNode, prefix: string, deep: DeepQuery): void {
  for (const sel of set.selections) {
    if (!included(sel, w.variables)) continue;
    if (sel.kind === Kind.INLINE_FRAGMENT) {
      walk(w, type, sel.selectionSet, prefix, deep);
      continue;
    }
    if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = w.fragments[sel.name.value];
      if (fragment) walk(w, type, fragment.selectionSet, prefix, deep);
      continue;
    }
    field(w, type, sel, prefix, deep);
  }
}

function field(w: Walk, type: GraphQLObjectType, node: FieldNode, prefix: string, deep: DeepQuery): void {
  const name = node.name.value;
  if (name.startsWith('__')) return;
  const def = type.getFields()[name];
  const meta = def && fieldMetaOf(def.extensions);
  if (!def || !meta) return;
  const path = `${prefix}${name}`;
  if (meta.kind === 'column') {
    w.fields.add(path);
    return;
  }
  if (meta.kind === 'fn') {
    if (node.selectionSet) members(w, node.selectionSet, (fn) => w.fields.add(`${prefix}${fn}(${meta.field})`));
    return;
  }
  const args = deepOptions(restArgs(getArgumentValues(def, node, w.variables), def.args));
  const argKey = stableKey(args);
  const seen = w.relationArgs.get(path);
  if (seen !== undefined && seen !== argKey) {
    throw new InvalidQueryError(`"${path}" is selected more than once with different arguments; one query can read a relation with one set of arguments.`);
  }
  w.relationArgs.set(path, argKey);
  const level = (deep[name] ??= {}) as DeepQuery;
  Object.assign(level, args);
  const child = getNamedType(def.type);
  if (!(child instanceof GraphQLObjectType) || !node.selectionSet) return;
  const before = w.fields.size;
  walk(w, child, node.selectionSet, `${path}.`, level);
  if (w.fields.size === before) {
    // Only __typename below: read one column so the relation's object is still there.
    const first = Object.values(child.getFields()).find((f) => fieldMetaOf(f.extensions)?.kind === 'column');
    if (first) w.fields.add(`${path}.${first.name}`);
  }
}

/** The member names selected in a `{field}_func` selection (fragments and directives honoured). */
function members(w: Walk, set: SelectionSetNode, add: (name: string) => void): void {
  for (const sel of set.selections) {
    if (!included(sel, w.variables)) continue;
    if (sel.kind === Kind.INLINE_FRAGMENT) members(w, sel.selectionSet, add);
    else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const fragment = w.fragments[sel.name.value];
      if (fragment) members(w, fragment.selectionSet, add);
    } else if (!sel.name.value.startsWith('__')) add(sel.name.value);
  }
}

/** Drops deep levels that carry no option at any depth. */
function prune(deep: DeepQuery): DeepQuery | undefined {
  const out: DeepQuery = {};
  for (const [k, v] of Object.entries(deep)) {
    if (k.startsWith('_')) out[k] = v;
    else {
      const sub = prune(v as DeepQuery);
      if (sub) out[k] = sub;
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** The REST fields and deep of every node of a root field (all its aliases' merged nodes). */
export function compileSelection(info: GraphQLResolveInfo, type: GraphQLObjectType, nodes: readonly FieldNode[] = info.fieldNodes): CompiledSelection {
  const w: Walk = { fragments: info.fragments, variables: info.variableValues, fields: new Set(), relationArgs: new Map() };
  const deep: DeepQuery = {};
  for (const node of nodes) if (node.selectionSet) walk(w, type, node.selectionSet, '', deep);
  if (w.fields.size === 0) {
    const first = Object.values(type.getFields()).find((f) => fieldMetaOf(f.extensions)?.kind === 'column');
    if (first) w.fields.add(first.name);
  }
  const pruned = prune(deep);
  // Sorted: the same selection in another order is the same read (one cache key, one statement).
  const fields = [...w.fields].sort();
  return pruned ? { fields, deep: pruned } : { fields };
}

/** The selected sub-fields of a root field of a non-collection type (aggregates): name -> selected member names. */
export function selectedMembers(info: GraphQLResolveInfo): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const visit = (set: SelectionSetNode, into: (name: string, node: FieldNode) => void): void => {
    for (const sel of set.selections) {
      if (!included(sel, info.variableValues)) continue;
      if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet, into);
      else if (sel.kind === Kind.FRAGMENT_SPREAD) {
        const f = info.fragments[sel.name.value];
        if (f) visit(f.selectionSet, into);
      } else into(sel.name.value, sel);
    }
  };
  for (const node of info.fieldNodes) {
    if (!node.selectionSet) continue;
    visit(node.selectionSet, (name, sub) => {
      if (!out.has(name)) out.set(name, new Set());
      if (sub.selectionSet) visit(sub.selectionSet, (member) => { if (!member.startsWith('__')) out.get(name)!.add(member); });
    });
  }
  return out;
}
