/** The GraphQL server (graphql-yoga over the fetch API, no HTTP framework): one per endpoint and config,
 * the caller's schema taken from the cache, graphql-armor's limits (depth, aliases, tokens, directives),
 * our cost rule, optional introspection, yoga's parse/validation cache, and results in the service's
 * error envelope and statuses.
 *
 * Well-formed JSON POSTs that accept JSON (the common request) skip yoga's HTTP layer (request parsing,
 * media-type negotiation, the fetch-API Response): they enter yoga at its parameters step, so the same
 * plugins parse, validate (cached), limit and execute them, and the result is serialised here exactly as
 * yoga's JSON result processor would. Everything else (GET, other media types, bad parameters, batches)
 * goes through yoga whole. */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { execute, NoSchemaIntrospectionCustomRule, specifiedRules, type ExecutionResult } from 'graphql/index.js';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError } from '../errors.ts';
import { graphqlSchemaFor } from './cache.ts';
import type { GraphqlContext } from './context.ts';
import { costLimitRule } from './cost.ts';
import { normalizeResult } from './errors.ts';
import { withScalarAliases } from './scalar-aliases.ts';

export type GraphqlServer = YogaServerInstance<GraphqlContext, Record<string, never>>;

function rulesPlugin(config: Config): Plugin {
  const cost = costLimitRule(config.graphql.maxCost);
  return {
    onValidate({ addValidationRule, validateFn, setValidationFn }) {
      addValidationRule(cost);
      if (!config.graphql.introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
      // Variables declared with Directus' scalar names (core/graphql/scalar-aliases.ts).
      setValidationFn((schema, document, rules, ...rest) => validateFn(schema, document, withScalarAliases(rules ?? specifiedRules), ...rest));
    },
  };
}

function envelopePlugin(config: Config): Plugin {
  const expose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const log = (err: unknown) => { if (config.logLevel !== 'silent') console.error(err); };
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !result || typeof result !== 'object' || !('errors' in result)) return;
      const normalized = normalizeResult(result as ExecutionResult, { expose, log });
      if (!normalized) return;
      const extensions = { ...normalized.result.extensions, http: { status: normalized.status, headers: normalized.headers } };
      setResult({ ...normalized.result, extensions });
    },
  };
}

/** POST bodies arrive parsed in the server context: their GraphQL parameters are taken from there (no second
 * read of the request stream). yoga's parameter checks still run on them. */
const parsedBodyPlugin: Plugin<GraphqlContext> = {
  onRequestParse({ request, serverContext, setRequestParser }) {
    const body = (serverContext as Partial<GraphqlContext>).body;
    if (request.method !== 'POST' || body === undefined) return;
    setRequestParser(() => {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidPayloadError('The body must be a JSON object.');
      return body as Record<string, never>;
    });
  },
};

/** The caller's schema, resolved (from the cache) before yoga runs: set on the context by handleGraphql. */
const schemaPlugin: Plugin<GraphqlContext> = {
  onEnveloped({ context, setSchema }) {
    const schema = (context as Partial<GraphqlContext> | undefined)?.schema;
    if (schema) setSchema(schema);
  },
};

/** graphql-js' reference executor instead of yoga's default one (whose incremental-delivery machinery is not
 * used here: no @defer/@stream, no subscriptions). In the bench the two were within noise of each other. */
const graphqlJsExecutor: Plugin = {
  onExecute({ setExecuteFn }) {
    setExecuteFn(execute as Parameters<typeof setExecuteFn>[0]);
  },
};

function createServer(config: Config, system: boolean): GraphqlServer {
  const limits = config.graphql;
  return createYoga<GraphqlContext>({
    graphqlEndpoint: system ? '/graphql/system' : '/graphql',
    graphiql: false,
    landingPage: false,
    logging: false,
    maskedErrors: false,
    cors: false,
    batching: false,
    parserAndValidationCache: true,
    // Bodies are read and bounded (MAX_PAYLOAD_SIZE) before yoga sees the request.
    maxRequestBodySize: false,
    plugins: [
      schemaPlugin,
      parsedBodyPlugin,
      graphqlJsExecutor,
      EnvelopArmorPlugin({
        maxDepth: { n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true },
        maxAliases: { n: limits.maxAliases },
        maxTokens: { n: limits.maxTokens },
        maxDirectives: { n: 50 },
        costLimit: { enabled: false },
        blockFieldSuggestion: { enabled: false },
      }),
      rulesPlugin(config),
      envelopePlugin(config),
    ],
  }) as unknown as GraphqlServer;
}

const servers = new WeakMap<Config, { user?: GraphqlServer; system?: GraphqlServer }>();

export function graphqlServer(config: Config, system: boolean): GraphqlServer {
  let entry = servers.get(config);
  if (!entry) servers.set(config, entry = {});
  const slot = system ? 'system' : 'user';
  return entry[slot] ??= createServer(config, system);
}

const PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parameters yoga's own checks (useCheckGraphQLQueryParams) accept as they are. */
function wellFormed(body: unknown): body is Record<string, unknown> & { query: string } {
  if (!isObject(body) || typeof body.query !== 'string' || body.query === '') return false;
  for (const [k, v] of Object.entries(body)) if (v != null && !PARAMS.has(k)) return false;
  if (body.variables != null && !isObject(body.variables)) return false;
  if (body.extensions != null && !isObject(body.extensions)) return false;
  return body.operationName == null || typeof body.operationName === 'string';
}

/** Requests yoga would answer with its regular `application/json` processor. */
function acceptsPlainJson(request: Request): boolean {
  const accept = request.headers.get('accept');
  if (accept === null) return true;
  const types = accept.replace(/\s/g, '').toLowerCase().split(',');
  return types.every((t) => t === '*/*' || t === 'application/json' || t === 'application/json;charset=utf-8');
}

/** An answer as plain data, so the HTTP layer writes it without a fetch-API Response in between. */
export interface GraphqlReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A result as yoga's JSON processor sends it: our envelope plugin's status and headers, `extensions.http` left out. */
function jsonReply(result: ExecutionResult, config: Config): GraphqlReply {
  const expose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const log = (err: unknown) => { if (config.logLevel !== 'silent') console.error(err); };
  const normalized = normalizeResult(result, { expose, log });
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', ...normalized?.headers };
  return { status: normalized?.status ?? 200, headers, body: JSON.stringify(normalized?.result ?? result) };
}

async function replyOf(res: Response): Promise<GraphqlReply> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => { headers[key] = value; });
  return { status: res.status, headers, body: await res.text() };
}

const paths = { direct: 0, yoga: 0 };

/** How many requests took the direct path and yoga's whole HTTP path (tests check which path runs). */
export function requestPathCounts(): { direct: number; yoga: number } {
  return { ...paths };
}

/** Runs one GraphQL request for a caller; `/graphql/system` reads through the system endpoints' rules. */
export async function handleGraphql(request: Request, service: ServiceContext, system: boolean, body?: unknown): Promise<GraphqlReply> {
  const svc = system ? { ...service, system: true } : service;
  const schema = await graphqlSchemaFor(svc, system);
  const ctx: GraphqlContext = { service: svc, reads: new Map(), body, schema };
  const server = graphqlServer(service.config, system);
  if (request.method === 'POST' && wellFormed(body) && acceptsPlainJson(request)) {
    paths.direct++;
    const result = await server.getResultForParams({ params: body, request }, ctx);
    // No subscriptions, @defer or @stream here: a stream result is refused as yoga's JSON processor refuses it.
    if (!isObject(result) || Symbol.asyncIterator in result) return { status: 406, headers: {}, body: '' };
    return jsonReply(result as ExecutionResult, service.config);
  }
  paths.yoga++;
  return replyOf(await server.fetch(request, ctx));
}
