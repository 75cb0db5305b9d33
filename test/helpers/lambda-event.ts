/** API Gateway HTTP API (payload format 2.0) events for driving the Lambda entry (functions/lambda.ts) in tests. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ADMIN_TOKEN } from './template.ts';

export interface EventInput {
  method: string;
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  base64?: boolean;
  cookies?: string[];
}

/** A real HTTP API (payload format 2.0) event, as API Gateway sends it for the `$default` route. */
export function event(i: EventInput): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    accept: '*/*',
    host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'user-agent': 'lambda-test/1.0',
    'x-amzn-trace-id': 'Root=1-65a1b2c3-0123456789abcdef01234567',
    'x-forwarded-for': '198.51.100.7',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    ...i.headers,
  };
  if (i.body !== undefined) headers['content-length'] = String(Buffer.byteLength(i.body, i.base64 ? 'base64' : 'utf8'));
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: i.path,
    rawQueryString: i.query ?? '',
    ...(i.cookies ? { cookies: i.cookies } : {}),
    headers,
    ...(i.query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(i.query)) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: i.method, path: i.path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'lambda-test/1.0' },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: '$default',
      stage: '$default',
      time: '10/Mar/2026:10:00:00 +0000',
      timeEpoch: 1773136800000,
    },
    ...(i.body !== undefined ? { body: i.body } : {}),
    isBase64Encoded: i.base64 ?? false,
  };
}

/** A JSON request of the admin (its static token). */
export function jsonEvent(method: string, path: string, body: unknown): APIGatewayProxyEventV2 {
  return event({ method, path, body: JSON.stringify(body), headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` } });
}
