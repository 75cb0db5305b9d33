/** The MCP server in the functions half on Lambda (functions/lambda.ts, API Gateway HTTP API v2 events): stateless JSON
 * answers need no stream and no session, so an initialize and a tool call are two independent invocations. */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLambdaHandler } from '../../functions/lambda.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { event } from '../helpers/lambda-event.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { ARTICLE, installModel } from './setup.ts';

let t: TestApp;
let handler: ReturnType<typeof createLambdaHandler>;
const context = { functionName: 'svc-functions', awsRequestId: 'req-1' } as unknown as Context;

beforeAll(async () => {
  t = await createTestApp({ env: { MCP_ENABLED: 'true' } });
  await installModel(t);
  handler = createLambdaHandler(t.services);
});
afterAll(async () => { await t?.close(); });

async function post(body: unknown, token: string | null = ADMIN_TOKEN): Promise<{ statusCode: number; headers: Record<string, string>; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await handler(event({ method: 'POST', path: '/mcp', headers, body: JSON.stringify(body) }) as never, context as never) as unknown as { statusCode: number; headers: Record<string, string>; body: string };
  return { ...res, body: JSON.parse(res.body) };
}

it('answers initialize and a tool call as JSON, each in its own invocation', async () => {
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lambda', version: '1' } } });
  expect(init.statusCode).toBe(200);
  expect(init.headers['content-type']).toMatch(/^application\/json/);
  expect(init.headers['mcp-session-id']).toBeUndefined();
  expect(init.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'svc' }, capabilities: { tools: {} } } });
  const read = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_item', arguments: { collection: 'articles', key: ARTICLE, fields: ['title'] } } });
  expect(read.statusCode).toBe(200);
  expect(JSON.parse(read.body.result.content[0].text)).toEqual({ data: { title: 'Engines of the future' } });
  const anonymous = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, null);
  expect(anonymous.statusCode).toBe(401);
  expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="svc"');
});
