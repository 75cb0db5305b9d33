/** One MCP tool: its name, JSON schema (from a zod shape; unknown arguments are refused), annotations, and what it
 * does with the caller's McpCall. The SDK checks the arguments against the schema before the tool runs (a call that
 * fails it is answered with the SDK's input-validation error); whatever the tool throws is answered as a tool error in
 * the REST error envelope (results.ts); its value is answered as JSON text within MCP_MAX_RESULT_SIZE. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AnySchema, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpCall } from './call.ts';
import { toolError, toolResult } from './results.ts';

export interface McpTool {
  readonly name: string;
  register(server: McpServer, call: McpCall): void;
}

export interface ToolSpec<S extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations?: ToolAnnotations;
  run(call: McpCall, args: z.output<z.ZodObject<S, z.core.$strict>>): Promise<unknown>;
}

export function defineTool<S extends z.ZodRawShape>(spec: ToolSpec<S>): McpTool {
  const inputSchema = z.strictObject(spec.input);
  return {
    name: spec.name,
    register(server, call) {
      server.registerTool<ZodRawShapeCompat, AnySchema>(spec.name, {
        title: spec.title, description: spec.description, inputSchema, annotations: spec.annotations,
      }, async (args: unknown) => {
        try {
          return toolResult(await spec.run(call, args as z.output<typeof inputSchema>), call.ctx.config.mcp.maxResultBytes);
        } catch (err) {
          return toolError(err, call.ctx.config);
        }
      });
    },
  };
}

/** Annotations of tools that only read. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
