/** The GraphQL server (graphql-yoga over the fetch API, no HTTP framework): one per endpoint and config,
 * the caller's schema taken from the cache, graphql-armor's limits (depth, aliases, tokens, directives),
 * our cost rule, optional introspection, yoga's parse/validation cache, and results in the service's
 * error envelope and statuses. */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { execute, NoSchemaIntrospectionCustomRule, type ExecutionResult } from 'graphql/index.js';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { ServiceContext } from '../context.ts';
import { InvalidPayloadError } from '../errors.ts';
import { graphqlSchemaFor } from './cache.ts';
import type { GraphqlContext } from './context.ts';
import { costLimitRule } from './cost.ts';
import { normalizeResult } from './errors.ts';

export type GraphqlServer = YogaServerInstance<GraphqlContext, Record<string, never>>;

function rulesPlugin(config: Config): Plugin {
  const cost = costLimitRule(config.graphql.maxCost);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(cost);
      if (!config.graphql.introspection) addValidationRule(NoSchemaIntrospectionCustomRule);
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
    schema: (ctx: GraphqlContext) => graphqlSchemaFor(ctx.service, system),
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

/** Runs one GraphQL request for a caller; `/graphql/system` reads through the system endpoints' rules. */
export async function handleGraphql(request: Request, service: ServiceContext, system: boolean, body?: unknown): Promise<Response> {
  const ctx: GraphqlContext = { service: system ? { ...service, system: true } : service, reads: new Map(), body };
  return graphqlServer(service.config, system).fetch(request, ctx);
}
