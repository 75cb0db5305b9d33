/** Root resolvers: each compiles its selection into one REST query and calls the same services as REST
 * (readItems, readItemData, readSingleton, the write services). Identical root reads under different aliases
 * share one promise. Nested fields resolve by property access on the returned JSON. */
import type { GraphQLFieldResolver, GraphQLObjectType, GraphQLResolveInfo } from 'graphql/index.js';
import { ForbiddenError } from '../errors.ts';
import { readItemData, readItems, readSingleton, type QueryInput } from '../items/read.ts';
import {
  createItem, createItems, deleteItem, deleteItems, updateItem, updateItems, upsertSingleton, type PrimaryKey,
} from '../items/write/index.ts';
import type { Query } from '../query/types.ts';
import type { CollectionOverview } from '../schema/types.ts';
import { aggregateOf, shapeRow } from './aggregate.ts';
import type { GraphqlContext } from './context.ts';
import { restArgs } from './functions.ts';
import { listQuery, plain } from './query-args.ts';
import { compileSelection, selectedMembers } from './selection.ts';
import { stableKey } from './stable-key.ts';

type Resolver = GraphQLFieldResolver<unknown, GraphqlContext, Record<string, unknown>>;

/** The compiled statement cache of core/items/read.ts is keyed by this identity of the query. */
function input(query: Query, key = stableKey(query)): QueryInput {
  return { query, cacheKey: `graphql:${key}` };
}

function shared<T>(ctx: GraphqlContext, key: string, run: () => Promise<T>): Promise<T> {
  let p = ctx.reads.get(key) as Promise<T> | undefined;
  if (!p) {
    p = run();
    ctx.reads.set(key, p);
  }
  return p;
}

function dataOf(text: string): unknown {
  return (JSON.parse(text) as { data: unknown }).data;
}

function selectionQuery(info: GraphQLResolveInfo, type: GraphQLObjectType, base: Query = {}): Query {
  const { fields, deep } = compileSelection(info, type);
  return deep ? { ...base, fields, deep } : { ...base, fields };
}

export function listResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return (_src, args, ctx, info) => {
    const query = selectionQuery(info, type, listQuery(restArgs(args, info.parentType.getFields()[info.fieldName].args), ctx.service.config));
    const key = stableKey(query);
    return shared(ctx, `list:${c.collection}:${key}`, async () => dataOf(await readItems(ctx.service, c.collection, input(query, key))));
  };
}

export function byIdResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return (_src, args, ctx, info) => {
    const query = selectionQuery(info, type);
    const id = args.id as string;
    const key = stableKey(query);
    return shared(ctx, `one:${c.collection}:${id}:${key}`, async () => {
      const text = await readItemData(ctx.service, c.collection, id, input(query, key));
      return text === null ? null : JSON.parse(text);
    });
  };
}

export function singletonResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return (_src, _args, ctx, info) => {
    const query = selectionQuery(info, type);
    const key = stableKey(query);
    return shared(ctx, `singleton:${c.collection}:${key}`, async () => dataOf(await readSingleton(ctx.service, c.collection, input(query, key))));
  };
}

export function aggregatedResolver(c: CollectionOverview): Resolver {
  return (_src, args, ctx, info) => {
    const base = listQuery(restArgs(args, info.parentType.getFields()[info.fieldName].args), ctx.service.config);
    const request = aggregateOf(c, selectedMembers(info));
    const query: Query = { ...base, aggregate: request.aggregate };
    const key = stableKey(query);
    return shared(ctx, `aggregate:${c.collection}:${key}`, async () => {
      const rows = dataOf(await readItems(ctx.service, c.collection, input(query, key))) as Record<string, unknown>[];
      return rows.map((row) => shapeRow(row, base.groupBy, request));
    });
  };
}

// ---------------------------------------------------------------- mutations

/** The written item read back with the caller's selection; null when the caller may not read it. */
async function readBack(ctx: GraphqlContext, c: CollectionOverview, type: GraphQLObjectType, info: GraphQLResolveInfo, key: PrimaryKey): Promise<unknown> {
  try {
    const text = await readItemData(ctx.service, c.collection, key, input(selectionQuery(info, type)));
    return text === null ? null : JSON.parse(text);
  } catch (err) {
    if (err instanceof ForbiddenError) return null;
    throw err;
  }
}

async function readBackMany(ctx: GraphqlContext, c: CollectionOverview, type: GraphQLObjectType, info: GraphQLResolveInfo, keys: PrimaryKey[]): Promise<unknown> {
  if (keys.length === 0) return [];
  const query = selectionQuery(info, type, { filter: { [c.primary!]: { _in: keys } }, limit: -1 });
  try {
    return dataOf(await readItems(ctx.service, c.collection, { query }));
  } catch (err) {
    if (err instanceof ForbiddenError) return null;
    throw err;
  }
}

export function createOneResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return async (_src, args, ctx, info) => readBack(ctx, c, type, info, await createItem(ctx.service, c.collection, plain(args.data)));
}

export function createManyResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return async (_src, args, ctx, info) => readBackMany(ctx, c, type, info, await createItems(ctx.service, c.collection, plain(args.data) as unknown[]));
}

export function updateOneResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return async (_src, args, ctx, info) => readBack(ctx, c, type, info, await updateItem(ctx.service, c.collection, args.id, plain(args.data)));
}

export function updateManyResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return async (_src, args, ctx, info) => readBackMany(ctx, c, type, info, await updateItems(ctx.service, c.collection, args.ids, plain(args.data)));
}

export function updateSingletonResolver(c: CollectionOverview, type: GraphQLObjectType): Resolver {
  return async (_src, args, ctx, info) => readBack(ctx, c, type, info, await upsertSingleton(ctx.service, c.collection, plain(args.data)));
}

export function deleteOneResolver(c: CollectionOverview): Resolver {
  return async (_src, args, ctx) => {
    await deleteItem(ctx.service, c.collection, args.id);
    return { id: args.id };
  };
}

export function deleteManyResolver(c: CollectionOverview): Resolver {
  return async (_src, args, ctx) => ({ ids: await deleteItems(ctx.service, c.collection, args.ids) });
}
