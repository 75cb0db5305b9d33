/** The MCP server of one request: the caller's tools, the collections as resources, the configured prompts and the
 * instructions, over the McpCall (call.ts). Built per request, stateless (functions/routes/mcp.ts connects it to the
 * SDK's Streamable HTTP transport and closes both after the answer). */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpCall } from './call.ts';
import { instructionsOf } from './instructions.ts';
import { MAX_TOOL_INPUT_ELEMENTS } from './limits.ts';
import { registerCollectionPrompts } from './prompts.ts';
import { registerCollectionResources } from './resources.ts';
import type { McpTool } from './tool.ts';
import { listFilesTool, importFileTool, readFileTool } from './tools/files.ts';
import { readItemsTool, readItemTool, searchItemsTool } from './tools/items-read.ts';
import { createItemTool, deleteItemTool, promoteVersionTool, updateItemTool } from './tools/items-write.ts';
import { sendNotificationTool } from './tools/notify.ts';
import { commentOnTaskTool, listMyTasksTool } from './tools/review.ts';
import { describeSchemaTool } from './tools/schema.ts';
import { systemPromptTool } from './tools/system-prompt.ts';
import { listVersionsTool } from './tools/versions.ts';

/** Every tool, in the order agents are shown them. Tools the settings switch off (delete_item without allow_deletes,
 * promote_version and direct writes with drafts_only) stay listed and refuse with the reason, as Directus' do. */
export const MCP_TOOLS: readonly McpTool[] = [
  systemPromptTool, describeSchemaTool, readItemsTool, readItemTool, searchItemsTool,
  createItemTool, updateItemTool, listVersionsTool, promoteVersionTool, deleteItemTool,
  listFilesTool, readFileTool, importFileTool,
  listMyTasksTool, commentOnTaskTool, sendNotificationTool,
];

export function createMcpServer(call: McpCall): McpServer {
  const { config } = call.ctx;
  const server = new McpServer(
    { name: 'svc', title: config.projectName, version: '1.0.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: instructionsOf(call.settings, config.mcp.maxRows),
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
    },
  );
  for (const tool of MCP_TOOLS) tool.register(server, call);
  registerCollectionResources(server, call);
  if (call.settings.prompts_collection) registerCollectionPrompts(server, call, call.settings.prompts_collection);
  return server;
}
