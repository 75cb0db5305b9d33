/** The OpenAPI 3.0.3 document of the service for one schema overview: system collections on their dedicated
 * paths (only the operations the app routes), user collections under /items/{collection} with item schemas
 * generated from their fields, shared parameters, error responses and security schemes. Built once per
 * overview object (the overview is replaced on every schema change) and kept as JSON text. */
import type { SchemaOverview } from '../schema/types.ts';
import { ERROR_RESPONSES, ERROR_SCHEMA, META_COMPONENT, PARAMETERS, QUERY_COMPONENT, SECURITY, SECURITY_SCHEMES } from './components.ts';
import { itemSchema, keySchema, type ItemRefs } from './field-schema.ts';
import { itemPaths } from './item-paths.ts';
import { itemsTag, schemaRef, stems } from './names.ts';
import type { Served } from './served.ts';
import { accessEndpoints } from './system/access.ts';
import { authServerEndpoints } from './system/auth-server.ts';
import { contentEndpoints } from './system/content.ts';
import { freeObject, type Endpoint, type SystemContext } from './system/endpoint.ts';
import { mcpEndpoints } from './system/mcp.ts';
import { notifyEndpoints } from './system/notify.ts';
import { publishingEndpoints } from './system/publishing.ts';
import { SCHEMA_COMPONENTS, schemaEndpoints } from './system/schema.ts';
import { workflowEndpoints } from './system/workflow.ts';
import type { OpenApiDocument, PathItemObject, ResponseObject, SchemaObject, TagObject } from './types.ts';

/** System tables never described: sessions (login and impersonation sessions) are internal state; the
 * schema metadata tables have their own shapes on /collections, /fields and /relations. */
export const HIDDEN_SYSTEM = new Set(['svc_sessions', 'svc_collections', 'svc_fields', 'svc_relations', 'svc_migrations', 'svc_migrations_lock']);

export interface DocumentInput {
  schema: SchemaOverview;
  title: string;
  version: string;
  publicUrl: string;
  /** Routes of the service behind the router: the serving app's route table and the container half's routes
   * (functions/routes/openapi.ts; the Lambda functions half serves none of those itself). */
  served: Served;
}

/** Every system operation the service knows how to describe (before checking which are routed). */
export function systemEndpoints(ctx: SystemContext): Endpoint[] {
  return [
    ...authServerEndpoints(ctx),
    ...accessEndpoints(ctx),
    ...contentEndpoints(ctx),
    ...publishingEndpoints(ctx),
    ...schemaEndpoints(),
    ...notifyEndpoints(ctx),
    ...workflowEndpoints(ctx),
    ...mcpEndpoints(),
  ];
}

interface Names {
  /** Collection -> component name of its item/record schema. */
  components: Map<string, string>;
  /** User collection -> PascalCase stem. */
  userStems: Map<string, string>;
}

function nameComponents(schema: SchemaOverview): Names {
  const all = Object.values(schema.collections);
  const system = all.filter((c) => c.system && !c.folder && !HIDDEN_SYSTEM.has(c.collection)).map((c) => c.collection);
  const user = all.filter((c) => !c.system && !c.folder).map((c) => c.collection);
  const taken = new Set([...Object.keys(SCHEMA_COMPONENTS), 'Error', 'Meta', 'Query']);
  const systemStems = stems(system.map((c) => c.slice(4)), taken);
  const userStems = stems(user);
  const components = new Map<string, string>();
  for (const c of system) components.set(c, systemStems.get(c.slice(4)) as string);
  for (const [c, stem] of userStems) components.set(c, `Items${stem}`);
  return { components, userStems };
}

function responses(): Record<string, ResponseObject> {
  return Object.fromEntries(Object.values(ERROR_RESPONSES));
}

export function buildDocument(input: DocumentInput): OpenApiDocument {
  const { schema } = input;
  const names = nameComponents(schema);
  const refs: ItemRefs = (collection) => names.components.get(collection) ?? null;

  const schemas: Record<string, SchemaObject> = { Error: ERROR_SCHEMA, Meta: META_COMPONENT, Query: QUERY_COMPONENT, ...SCHEMA_COMPONENTS };
  for (const [collection, name] of [...names.components].sort((a, b) => a[1].localeCompare(b[1]))) {
    schemas[name] = itemSchema(schema, schema.collections[collection], refs);
  }

  const ctx: SystemContext = {
    record: (collection) => {
      const name = refs(collection);
      return name ? schemaRef(name) : freeObject();
    },
    key: (collection) => keySchema(schema.collections[collection]),
  };

  const paths: Record<string, PathItemObject> = {};
  const tags: TagObject[] = [];
  const tagSeen = new Set<string>();
  const addTag = (name: string, description?: string) => {
    if (tagSeen.has(name)) return;
    tagSeen.add(name);
    tags.push(description ? { name, description } : { name });
  };

  for (const e of systemEndpoints(ctx)) {
    if (!input.served(e.method, e.path)) continue;
    (paths[e.path] ??= {})[e.method] = e.op;
    for (const t of e.op.tags) addTag(t);
  }

  for (const [collection, stem] of [...names.userStems].sort((a, b) => a[0].localeCompare(b[0]))) {
    addTag(itemsTag(collection), `Items of the ${collection} collection`);
    Object.assign(paths, itemPaths(schema.collections[collection], stem));
  }

  return {
    openapi: '3.0.3',
    info: { title: input.title, version: input.version, description: `The API of ${input.title}, generated from the current schema.` },
    servers: [{ url: input.publicUrl }],
    tags,
    paths,
    components: { schemas, parameters: PARAMETERS, responses: responses(), securitySchemes: SECURITY_SCHEMES },
    security: SECURITY,
  };
}

/** The document as JSON text, built once per schema overview object (and rebuilt when the title, version or
 * address changes). */
export class OpenApiCache {
  readonly #built = new WeakMap<SchemaOverview, { key: string; text: string }>();

  text(input: DocumentInput): string {
    const key = JSON.stringify([input.title, input.version, input.publicUrl]);
    const hit = this.#built.get(input.schema);
    if (hit && hit.key === key) return hit.text;
    const text = JSON.stringify(buildDocument(input));
    this.#built.set(input.schema, { key, text });
    return text;
  }
}
