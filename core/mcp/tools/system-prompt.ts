/** system_prompt: the instructions of this server (the settings' system prompt, or the built-in ones), for clients that
 * do not show the initialize answer's instructions to their model. */
import { instructionsOf } from '../instructions.ts';
import { defineTool, READ_ONLY } from '../tool.ts';

export const systemPromptTool = defineTool({
  name: 'system_prompt',
  title: 'How to work with this server',
  description: 'The instructions for agents on this server: what you may do, how drafts and review work. Read it first.',
  input: {},
  annotations: READ_ONLY,
  run: async (call) => ({ prompt: instructionsOf(call.settings, call.ctx.config.mcp.maxRows) }),
});
