/** A small schema overview, permission set and plan context built in memory, for the read stages' unit tests
 * (parse, plan, compile): no database. The shapes follow core/schema/load.ts.
 *
 *   authors    id, name, email, age, bio, profile (json), secret (concealed), posts (O2M <- posts.author)
 *   posts      id, title, body, status, published_on (timestamptz), views (int8), price (numeric), data (json),
 *              author (M2O -> authors), comments (O2M <- comments.post, sort_field "sort"), tags (M2M via posts_tags)
 *   comments   id, post (M2O -> posts), text, user_name, sort
 *   tags       id (varchar key), label
 *   posts_tags id, posts_id (M2O -> posts, one_field "tags"), tags_id (M2O -> tags)
 *   pages      id, title (sort field "title")
 *   pages_blocks id, page (M2O -> pages), collection, item (A2O -> block_hero | block_text)
 *   block_hero id, headline        block_text id, text (with its trigram search index)
 */
import type { Accountability } from '../../core/access/accountability.ts';
import type { PermissionSet, ResolvedPermission } from '../../core/access/permissions.ts';
import type { PlanContext } from '../../core/query/plan.ts';
import type { Filter } from '../../core/query/types.ts';
import type { CollectionOverview, FieldOverview, FieldType, Relation, SchemaOverview } from '../../core/schema/types.ts';

interface FieldOptions {
  pk?: boolean;
  auto?: boolean;
  special?: string[];
  nullable?: boolean;
}

export function field(name: string, type: FieldType, dbType: string | null, opts: FieldOptions = {}): FieldOverview {
  const alias = type === 'alias';
  return {
    field: name, type, dbType: alias ? null : dbType, nullable: opts.nullable ?? !opts.pk, defaultValue: null,
    maxLength: dbType === 'varchar' ? 255 : null, numericPrecision: null, numericScale: null,
    isPrimaryKey: opts.pk ?? false, autoIncrement: opts.auto ?? false, unique: opts.pk ?? false, indexed: opts.pk ?? false,
    special: opts.special ?? [], alias,
  };
}

const id = (): FieldOverview => field('id', 'integer', 'int4', { pk: true, auto: true });
const str = (name: string, special?: string[]): FieldOverview => field(name, 'string', 'varchar', { special });
const text = (name: string): FieldOverview => field(name, 'text', 'text');
const int = (name: string): FieldOverview => field(name, 'integer', 'int4');
const alias = (name: string, special: string): FieldOverview => field(name, 'alias', null, { special: [special] });

function collection(name: string, fields: FieldOverview[], opts: { sortField?: string; searchIndex?: boolean } = {}): CollectionOverview {
  const primary = fields.find((f) => f.isPrimaryKey)?.field ?? null;
  return {
    collection: name, primary, singleton: false, folder: false, system: name.startsWith('svc_'), accountability: 'all',
    sortField: opts.sortField ?? null, searchIndex: opts.searchIndex ?? false, fields: Object.fromEntries(fields.map((f) => [f.field, f])),
  };
}

interface RelationOptions {
  oneField?: string;
  junctionField?: string;
  sortField?: string;
  /** A2O: the discriminator field and the collections it may name (`related` is then null). */
  collectionField?: string;
  allowed?: string[];
}

function relation(many: string, manyField: string, one: string | null, opts: RelationOptions = {}): Relation {
  return {
    collection: many, field: manyField, related_collection: one,
    schema: one ? { on_delete: 'SET NULL', on_update: 'NO ACTION', constraint_name: `${many}_${manyField}_foreign` } : null,
    meta: {
      id: null, many_collection: many, many_field: manyField, one_collection: one, one_field: opts.oneField ?? null,
      one_collection_field: opts.collectionField ?? null, one_allowed_collections: opts.allowed ?? null,
      junction_field: opts.junctionField ?? null, sort_field: opts.sortField ?? null, one_deselect_action: 'nullify',
    },
  };
}

/** A fresh overview on every call (relation indexes are cached per overview object). */
export function buildSchema(): SchemaOverview {
  const collections = [
    collection('authors', [
      id(), str('name'), str('email'), int('age'), text('bio'), field('profile', 'json', 'json'), str('secret', ['conceal']),
      alias('posts', 'o2m'),
    ]),
    collection('posts', [
      id(), str('title'), text('body'), str('status'), field('published_on', 'timestamp', 'timestamptz'),
      field('views', 'bigInteger', 'int8'), field('price', 'decimal', 'numeric'), field('data', 'json', 'json'),
      int('author'), alias('comments', 'o2m'), alias('tags', 'm2m'),
    ]),
    collection('comments', [id(), int('post'), text('text'), str('user_name'), int('sort')]),
    collection('tags', [field('id', 'string', 'varchar', { pk: true }), str('label')]),
    collection('posts_tags', [id(), int('posts_id'), str('tags_id')]),
    collection('pages', [id(), str('title')], { sortField: 'title' }),
    collection('pages_blocks', [id(), int('page'), str('collection'), str('item')]),
    collection('block_hero', [id(), str('headline')]),
    collection('block_text', [id(), text('text')], { searchIndex: true }),
  ];
  return {
    version: 'fixture',
    collections: Object.fromEntries(collections.map((c) => [c.collection, c])),
    relations: [
      relation('posts', 'author', 'authors', { oneField: 'posts' }),
      relation('comments', 'post', 'posts', { oneField: 'comments', sortField: 'sort' }),
      relation('posts_tags', 'posts_id', 'posts', { oneField: 'tags', junctionField: 'tags_id' }),
      relation('posts_tags', 'tags_id', 'tags', { junctionField: 'posts_id' }),
      relation('pages_blocks', 'page', 'pages'),
      relation('pages_blocks', 'item', null, { collectionField: 'collection', allowed: ['block_hero', 'block_text'], junctionField: 'page' }),
    ],
  };
}

/** One collection's read grant as a plain object: `fields` omitted = all fields, `filter` omitted = every row. */
export interface Grant {
  fields?: string[];
  filter?: Filter;
}

/** A PermissionSet from plain objects: read grants per collection; other actions are not granted. */
export function permissions(read: Record<string, Grant>, clockDependent = false): PermissionSet {
  return {
    clockDependent,
    get(collection, action) {
      if (action !== 'read' || !Object.hasOwn(read, collection)) return null;
      const g = read[collection];
      const resolved: ResolvedPermission = { filter: g.filter ?? null, fields: g.fields ? new Set(g.fields) : null, validation: null, presets: null };
      return resolved;
    },
  };
}

/** Everything readable, every row, every field (an admin's set). */
export const ALL: PermissionSet = {
  clockDependent: false,
  get: () => ({ filter: null, fields: null, validation: null, presets: null }),
};

export function accountability(over: Partial<Accountability> = {}): Accountability {
  return {
    user: '00000000-0000-4000-8000-000000000001', role: null, roles: [], policies: [], admin: false, app: false,
    ip: null, userAgent: null, origin: null, ...over,
  };
}

export const LIMITS: PlanContext['limits'] = { maxDepth: 10, maxLimit: -1, defaultLimit: 100, maxRelationalDepth: 10 };

/** A plan context over the fixture schema; admin by default. */
export function planContext(perms: PermissionSet = ALL, over: Partial<PlanContext> = {}): PlanContext {
  return {
    schema: buildSchema(),
    permissions: perms,
    accountability: accountability({ admin: perms === ALL }),
    limits: LIMITS,
    ...over,
  };
}
