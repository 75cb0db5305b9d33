/** Builds a caller's GraphQL schema from the schema overview and its permissions (Directus' names):
 * per readable collection an object type with its readable fields, `{c}`, `{c}_by_id`, `{c}_aggregated`
 * (singletons: `{c}` alone, one object), and the mutations its permissions allow. What the caller cannot
 * read is not in its schema at all, so introspection cannot reveal it. */
import {
  GraphQLBoolean, GraphQLID, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString,
  type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLOutputType,
} from 'graphql/index.js';
import type { CollectionOverview } from '../schema/types.ts';
import { aggregatedList, aggregatedType } from './aggregate.ts';
import type { FieldMeta, GraphqlContext } from './context.ts';
import { exposedCollections, fieldKinds, scalarOf, type FieldKind, type SchemaScope } from './field-kinds.ts';
import { FilterTypes } from './filters.ts';
import { funcName, functionField } from './functions.ts';
import { InputTypes } from './inputs.ts';
import * as r from './resolvers.ts';
import { SCALAR_ALIASES } from './scalar-aliases.ts';

type Fields = GraphQLFieldConfigMap<unknown, GraphqlContext>;

const DELETE_ONE = new GraphQLObjectType({ name: 'delete_one', fields: { id: { type: GraphQLID } } });
const DELETE_MANY = new GraphQLObjectType({ name: 'delete_many', fields: { ids: { type: new GraphQLList(GraphQLID) } } });

const meta = (m: FieldMeta) => ({ svc: m });

export function buildGraphqlSchema(scope: SchemaScope): GraphQLSchema {
  const exposed = exposedCollections(scope);
  const readKinds = new Map<string, FieldKind[]>();
  for (const c of exposed.values()) readKinds.set(c.collection, fieldKinds(scope, exposed, c, 'read'));
  const kindsOf = (name: string) => readKinds.get(name) ?? [];

  const objects = new Map<string, GraphQLObjectType>();
  const filters = new FilterTypes(kindsOf, scope.admin);
  const objectOf = (name: string): GraphQLObjectType => objects.get(name)!;

  const listArgs = (name: string) => ({
    filter: { type: filters.filter(name) }, sort: { type: new GraphQLList(GraphQLString) }, limit: { type: GraphQLInt },
    offset: { type: GraphQLInt }, page: { type: GraphQLInt }, search: { type: GraphQLString },
  });

  for (const c of exposed.values()) {
    objects.set(c.collection, new GraphQLObjectType<unknown, GraphqlContext>({
      name: c.collection,
      fields: () => {
        const fields: Fields = {};
        for (const k of kindsOf(c.collection)) {
          if (k.kind === 'column') {
            const type = scalarOf(k.field) as GraphQLOutputType;
            fields[k.field.field] = { type: k.field.isPrimaryKey ? new GraphQLNonNull(type) : type, extensions: meta({ kind: 'column' }) };
          } else if (k.kind === 'm2o') {
            fields[k.field.field] = { type: objectOf(k.related), extensions: meta({ kind: 'm2o', related: k.related }) };
          } else {
            fields[k.field.field] = {
              type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(objectOf(k.related)))),
              args: listArgs(k.related),
              extensions: meta({ kind: 'o2m', related: k.related }),
            };
          }
        }
        // `{field}_func` members: only for what the caller may read (count: the related collection is in the
        // schema, so readable); never over a concealed field for a non-admin; never hiding a real field.
        for (const k of kindsOf(c.collection)) {
          if (k.kind === 'm2o' || (k.field.special.includes('conceal') && !scope.admin)) continue;
          const name = funcName(k.field.field);
          const fn = functionField(k.field, k.kind === 'o2m');
          if (fn && !Object.hasOwn(fields, name)) fields[name] = fn;
        }
        return fields;
      },
    }));
  }

  const query: Fields = {};
  const mutation: Fields = {};
  const add = (into: Fields, name: string, config: GraphQLFieldConfig<unknown, GraphqlContext>) => {
    if (!Object.hasOwn(into, name)) into[name] = config;
  };

  const writeKinds = (name: string, action: 'create' | 'update'): FieldKind[] | null => {
    const c = exposed.get(name);
    if (!c || scope.system || !scope.permissions.get(name, action)) return null;
    if (action === 'create' && c.singleton) return null;
    return fieldKinds(scope, exposed, c, action);
  };
  const inputs = new InputTypes(writeKinds);

  for (const c of exposed.values()) {
    const type = objectOf(c.collection);
    const name = c.collection;
    if (c.singleton) {
      add(query, name, { type, resolve: r.singletonResolver(c, type) });
    } else {
      add(query, name, { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type))), args: listArgs(name), resolve: r.listResolver(c, type) });
      add(query, `${name}_by_id`, { type, args: { id: { type: new GraphQLNonNull(GraphQLID) } }, resolve: r.byIdResolver(c, type) });
      add(query, `${name}_aggregated`, {
        type: aggregatedList(aggregatedType(c, kindsOf(name))),
        args: { ...listArgs(name), groupBy: { type: new GraphQLList(GraphQLString) } },
        resolve: r.aggregatedResolver(c),
      });
    }
    if (!scope.system) addMutations(mutation, add, c, type, inputs, scope);
  }

  if (Object.keys(query).length === 0) {
    query._empty = { type: GraphQLBoolean, description: "There's no data to query.", resolve: () => null };
  }
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation: Object.keys(mutation).length ? new GraphQLObjectType({ name: 'Mutation', fields: mutation }) : undefined,
    // Directus' scalar names, so that operations written for Directus may declare their variables with them.
    types: [...SCALAR_ALIASES],
  });
}

function addMutations(
  mutation: Fields, add: (into: Fields, name: string, config: GraphQLFieldConfig<unknown, GraphqlContext>) => void,
  c: CollectionOverview, type: GraphQLObjectType, inputs: InputTypes, scope: SchemaScope,
): void {
  const name = c.collection;
  const create = inputs.input(name, 'create');
  const update = inputs.input(name, 'update');
  const ids = { type: new GraphQLNonNull(new GraphQLList(GraphQLID)) };
  const id = { type: new GraphQLNonNull(GraphQLID) };
  if (c.singleton) {
    if (update) add(mutation, `update_${name}`, { type, args: { data: { type: new GraphQLNonNull(update) } }, resolve: r.updateSingletonResolver(c, type) });
    return;
  }
  const list = new GraphQLList(new GraphQLNonNull(type));
  if (create) {
    add(mutation, `create_${name}_item`, { type, args: { data: { type: new GraphQLNonNull(create) } }, resolve: r.createOneResolver(c, type) });
    add(mutation, `create_${name}_items`, { type: list, args: { data: { type: new GraphQLList(new GraphQLNonNull(create)) } }, resolve: r.createManyResolver(c, type) });
  }
  if (update) {
    add(mutation, `update_${name}_item`, { type, args: { id, data: { type: new GraphQLNonNull(update) } }, resolve: r.updateOneResolver(c, type) });
    add(mutation, `update_${name}_items`, { type: list, args: { ids, data: { type: new GraphQLNonNull(update) } }, resolve: r.updateManyResolver(c, type) });
  }
  if (scope.permissions.get(name, 'delete')) {
    add(mutation, `delete_${name}_item`, { type: DELETE_ONE, args: { id }, resolve: r.deleteOneResolver(c) });
    add(mutation, `delete_${name}_items`, { type: DELETE_MANY, args: { ids }, resolve: r.deleteManyResolver(c) });
  }
}
