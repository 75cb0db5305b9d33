/** What every MCP tool, resource and prompt runs with: the caller's service context (the accountability REST would
 * give the same credential), the settings of this request, and the ports the tools reach beyond the context. One
 * McpCall per HTTP request (the server is stateless: functions/routes/mcp.ts builds a server per POST). */
import type { ServiceContext } from '../context.ts';
import type { ConfigPort, DatabasePort, QueuePort, SchemaPort } from '../ports.ts';
import type { StorageRegistry } from '../storage/registry.ts';
import type { McpSettings } from './settings.ts';

/** The ports the tools use: the schema cache (schema reads), the storage providers (file import), the queue and
 * database (notification sends). `Services` satisfies it. */
export type McpServices = ConfigPort & DatabasePort & QueuePort & SchemaPort & { storage: StorageRegistry };

export interface McpCall {
  services: McpServices;
  ctx: ServiceContext;
  settings: McpSettings;
}
