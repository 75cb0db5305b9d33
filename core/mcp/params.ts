/** A request whose params break the protocol's own schema is answered -32602 (Invalid params), as JSON-RPC says. The
 * SDK checks them too, but inside the handler, whose failures it answers -32603 (Internal error): a client could not
 * tell its own mistake from ours. The schemas are the SDK's, looked up by method; methods it does not know are left
 * to it (-32601). */
import { ClientRequestSchema, ErrorCode, isJSONRPCRequest, type JSONRPCErrorResponse } from '@modelcontextprotocol/sdk/types.js';

const SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/** The error answer for `message`, or null when it is not a request with malformed params. */
export function invalidParams(message: unknown): JSONRPCErrorResponse | null {
  if (!isJSONRPCRequest(message)) return null;
  const schema = SCHEMAS.get(message.method);
  if (!schema) return null;
  const parsed = schema.safeParse(message);
  if (parsed.success) return null;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`);
  return { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problems.join('; ')}` } };
}
