/** /mcp, the MCP server (docs/mcp.md), and /system/mcp-settings, its settings (admins). The server is stateless: each
 * POST gets a fresh server (core/mcp/server.ts) on the SDK's web-standard Streamable HTTP transport without sessions,
 * answering JSON (no SSE stream), so it runs alike on Lambda, in the container and standalone. The body is read here,
 * bounded (MAX_PAYLOAD_SIZE, MAX_BATCH_MESSAGES), and handed to the transport parsed. GET and DELETE (a
 * client's standalone stream, a session's end) answer 405, as the SDK's stateless examples do.
 *
 * Before the transport sees the request: the server must be on (settings or MCP_ENABLED; else 403 FORBIDDEN, as
 * Directus answers), and the caller signed in with the credential REST reads (a static token, an access token...;
 * none: 401 with `WWW-Authenticate: Bearer`, functions/http/errors.ts); a share token is refused (403). */
import type { Context, Hono } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { assertAuthenticated } from '../../core/access/authenticated.ts';
import { ContentTooLargeError, ForbiddenError } from '../../core/errors.ts';
import type { McpCall } from '../../core/mcp/call.ts';
import { MAX_BATCH_MESSAGES } from '../../core/mcp/limits.ts';
import { invalidParams } from '../../core/mcp/params.ts';
import { createMcpServer } from '../../core/mcp/server.ts';
import { effectiveMcpSettings, readMcpSettings, updateMcpSettings } from '../../core/mcp/settings.ts';
import { readJson, readText } from '../http/body.ts';
import { serviceContext } from '../http/context.ts';
import type { AppEnv } from '../http/env.ts';

async function mcpCall(c: Context<AppEnv>): Promise<McpCall> {
  const services = c.get('services');
  const settings = await effectiveMcpSettings(services.database.db, services.config);
  if (!settings.enabled) throw new ForbiddenError('The MCP server is turned off (enable it in /system/mcp-settings or with MCP_ENABLED).');
  const ctx = await serviceContext(c);
  assertAuthenticated(ctx.accountability);
  if (ctx.accountability.share) throw new ForbiddenError('A share token cannot use the MCP server.');
  // Nested relations read without a deep `_limit` take QUERY_LIMIT_DEFAULT: bounded by MCP_MAX_ROWS here too.
  const config = services.config;
  const defaultLimit = config.queryLimitDefault > 0 ? Math.min(config.queryLimitDefault, config.mcp.maxRows) : config.mcp.maxRows;
  return { services, settings, ctx: { ...ctx, config: { ...config, queryLimitDefault: defaultLimit } } };
}

/** A JSON-RPC error answered before the protocol runs, as the SDK's transport answers its own. */
function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  const body = { jsonrpc: '2.0', error: { code, message }, id: null };
  return new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json' } });
}

function methodNotAllowed(): Response {
  return rpcError(405, -32000, 'Method not allowed: this MCP server is stateless; send requests with POST.', { allow: 'POST' });
}

/** The body, read here (not by the transport) to bound it: MAX_PAYLOAD_SIZE bytes, at most MAX_BATCH_MESSAGES
 * messages; a Response for what is refused. The transport then checks the headers and the messages. */
async function rpcBody(c: Context<AppEnv>, maxBytes: number): Promise<{ parsed: unknown } | Response> {
  let text: string;
  try {
    text = await readText(c, maxBytes);
  } catch (err) {
    if (err instanceof ContentTooLargeError) return rpcError(413, -32000, `Payload Too Large: Request body must not exceed ${maxBytes} bytes`);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, 'Parse error: Invalid JSON');
  }
  if (Array.isArray(parsed) && parsed.length > MAX_BATCH_MESSAGES) {
    return rpcError(400, -32600, `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages`);
  }
  return { parsed };
}

export function mountMcpRoutes(app: Hono<AppEnv>): void {
  app.post('/mcp', async (c) => {
    const call = await mcpCall(c);
    const body = await rpcBody(c, call.ctx.config.maxPayloadSize);
    if (body instanceof Response) return body;
    const server = createMcpServer(call);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // Malformed params are answered here, before the protocol's handlers (core/mcp/params.ts).
    const deliver = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      const refusal = invalidParams(message);
      if (refusal) void transport.send(refusal, { relatedRequestId: refusal.id });
      else deliver(message, extra);
    };
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: body.parsed });
    } finally {
      await server.close();
    }
  });
  app.get('/mcp', async (c) => {
    await mcpCall(c);
    return methodNotAllowed();
  });
  app.delete('/mcp', async (c) => {
    await mcpCall(c);
    return methodNotAllowed();
  });

  app.get('/system/mcp-settings', async (c) => c.json({ data: await readMcpSettings(await serviceContext(c)) }));
  app.patch('/system/mcp-settings', async (c) => {
    const ctx = await serviceContext(c);
    return c.json({ data: await updateMcpSettings(ctx, await readJson(c)) });
  });
}
