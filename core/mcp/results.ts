/** Tool answers: a JSON text, bounded by MCP_MAX_RESULT_SIZE; and tool errors in the REST error envelope
 * (`{errors: [{message, extensions: {code}}]}`, `isError: true`), so an agent reads the same message and code a REST
 * client would. Errors of the protocol itself (unknown method, malformed request, arguments that fail a tool's
 * schema) are the SDK's, before a tool runs. */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.ts';
import { ContentTooLargeError, errorEnvelope } from '../errors.ts';

/** `value` as JSON text (a string is taken as JSON text already: readers answer `{"data":...}` text). Over the limit
 * it throws CONTENT_TOO_LARGE, which the tool answers as an error telling the agent what to change. */
export function jsonText(value: unknown, maxBytes: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new ContentTooLargeError(`The answer is ${bytes} bytes, more than the ${maxBytes} one MCP call may return (MCP_MAX_RESULT_SIZE). `
      + 'Ask for fewer rows (limit, filter) or fewer fields.');
  }
  return text;
}

export function toolResult(value: unknown, maxBytes: number): CallToolResult {
  return { content: [{ type: 'text', text: jsonText(value, maxBytes) }] };
}

/** The error envelope of `err`, as REST would answer it. */
export function toolError(err: unknown, config: Config): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(errorEnvelope(err, config.logLevel).body) }] };
}

/** A failed resource read or prompt (no tool result to carry it): a JSON-RPC error whose message is the service's and
 * whose data is the REST error envelope; InvalidParams for the caller's errors (4xx), InternalError otherwise. */
export function protocolError(err: unknown, config: Config): McpError {
  const { status, body } = errorEnvelope(err, config.logLevel);
  return new McpError(status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError, body.errors[0].message, body);
}

/** Runs a resource or prompt callback, its failures as protocolError. */
export async function asProtocol<T>(config: Config, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw protocolError(err, config);
  }
}
