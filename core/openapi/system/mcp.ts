/** The MCP server (functions/routes/mcp.ts; core/mcp; docs/mcp.md): POST /mcp speaks JSON-RPC (the Model Context
 * Protocol's Streamable HTTP transport, stateless), GET and DELETE answer 405; /system/mcp-settings holds its settings. */
import { operation } from '../operation.ts';
import type { OperationObject, SchemaObject } from '../types.ts';
import { endpoint, freeObject, type Endpoint } from './endpoint.ts';

const tag = 'MCP';
const bool: SchemaObject = { type: 'boolean' };
const nullableText: SchemaObject = { type: 'string', nullable: true };

const SETTINGS_FIELDS: Record<string, SchemaObject> = {
  enabled: { ...bool, description: 'Serve /mcp (default false)' },
  allow_deletes: { ...bool, description: 'The delete_item tool may delete (default false)' },
  drafts_only: { ...bool, description: 'Agents\' creates and updates become drafts (content versions) for review; no direct writes, no promote (default true)' },
  system_prompt: { ...nullableText, description: 'Instructions given to agents (null: the built-in ones)' },
  prompts_collection: { ...nullableText, description: 'A collection whose items are offered as MCP prompts (name, description, system_prompt, messages)' },
};

const SETTINGS: SchemaObject = {
  type: 'object',
  properties: { ...SETTINGS_FIELDS, enabled_by_env: { ...bool, description: 'MCP_ENABLED turns the server on whatever `enabled` says (read-only)' } },
};

const JSON_RPC: SchemaObject = freeObject('A JSON-RPC 2.0 message (or batch) of the Model Context Protocol');

/** GET and DELETE: always 405 once the caller passes (the standard 401/403 apply before). */
function notOffered(id: string, summary: string): OperationObject {
  const op = operation({ id, summary, tag, status: 204 });
  delete op.responses['204'];
  op.responses['405'] = { description: 'Stateless server: no standalone stream and no session to end; send requests with POST' };
  return op;
}

export function mcpEndpoints(): Endpoint[] {
  return [
    endpoint('post', '/mcp', operation({
      id: 'mcp', summary: 'Model Context Protocol (Streamable HTTP, stateless)', tag, body: JSON_RPC, data: JSON_RPC, raw: true,
      description: 'An MCP client (an AI agent) sends JSON-RPC requests with `Accept: application/json, text/event-stream`; '
        + 'each is answered as JSON. Tools run with the caller\'s permissions; creates and updates become drafts for review '
        + '(docs/mcp.md). 403 when the server is turned off; 401 with `WWW-Authenticate: Bearer` without a credential.',
      extra: { 202: { description: 'Accepted (a notification or response without a request)' } },
    })),
    endpoint('get', '/mcp', notOffered('mcpStream', 'A standalone server-to-client stream: not offered (stateless)')),
    endpoint('delete', '/mcp', notOffered('mcpEndSession', 'End an MCP session: not offered (stateless)')),
    endpoint('get', '/system/mcp-settings', operation({ id: 'readMcpSettings', summary: 'The MCP server\'s settings (admin)', tag, data: SETTINGS })),
    endpoint('patch', '/system/mcp-settings', operation({
      id: 'updateMcpSettings', summary: 'Change the MCP server\'s settings (admin)', tag, data: SETTINGS,
      body: { type: 'object', additionalProperties: false, properties: SETTINGS_FIELDS },
    })),
  ];
}
