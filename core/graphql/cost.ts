/** Cost limit (GRAPHQL_MAX_COST): a document's cost is the number of reads it asks of the database: each
 * root field is one statement, and each relation level selected inside it one more nested subquery. */
import {
  getNamedType, GraphQLError, GraphQLObjectType, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode,
  type ValidationContext,
} from 'graphql/index.js';
import { fieldMetaOf } from './context.ts';

function costOf(type: GraphQLObjectType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, path: Set<string>): number {
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.INLINE_FRAGMENT) {
      total += costOf(type, sel.selectionSet, fragments, path);
    } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const name = sel.name.value;
      const fragment = fragments.get(name);
      if (!fragment || path.has(name)) continue;
      path.add(name);
      total += costOf(type, fragment.selectionSet, fragments, path);
      path.delete(name);
    } else {
      const def = type.getFields()[sel.name.value];
      const meta = def && fieldMetaOf(def.extensions);
      if (!def || !meta || meta.kind === 'column' || meta.kind === 'fn' || !sel.selectionSet) continue;
      const child = getNamedType(def.type);
      total += 1 + (child instanceof GraphQLObjectType ? costOf(child, sel.selectionSet, fragments, path) : 0);
    }
  }
  return total;
}

export function costLimitRule(maxCost: number) {
  return function GraphqlCostLimit(context: ValidationContext): ASTVisitor {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    return {
      OperationDefinition(op) {
        const root = context.getSchema().getRootType(op.operation);
        if (!root) return;
        let cost = 0;
        const path = new Set<string>();
        const visitRoot = (set: SelectionSetNode): void => {
          for (const sel of set.selections) {
            if (sel.kind === Kind.FIELD) {
              if (sel.name.value.startsWith('__')) continue;
              const def = root.getFields()[sel.name.value];
              const child = def && getNamedType(def.type);
              cost += 1 + (child instanceof GraphQLObjectType && sel.selectionSet ? costOf(child, sel.selectionSet, fragments, path) : 0);
            } else if (sel.kind === Kind.INLINE_FRAGMENT) {
              visitRoot(sel.selectionSet);
            } else {
              const fragment = fragments.get(sel.name.value);
              if (fragment && !path.has(sel.name.value)) {
                path.add(sel.name.value);
                visitRoot(fragment.selectionSet);
                path.delete(sel.name.value);
              }
            }
          }
        };
        visitRoot(op.selectionSet);
        if (cost > maxCost) context.reportError(new GraphQLError(`Query cost limit of ${maxCost} exceeded, found ${cost}.`, { nodes: [op] }));
      },
    };
  };
}
