/** JSON over HTTP for the gateway_mail and chat providers: bounded time, the answer read as JSON when it is JSON. */
import { ProviderError } from './types.ts';

export async function postJson(url: string, token: string | null, body: unknown, timeoutMs = 30_000): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ProviderError(`Could not reach ${new URL(url).host}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text */ }
  if (!res.ok) throw new ProviderError(`${new URL(url).host} answered ${res.status}: ${text.slice(0, 300)}`, res.status);
  return { status: res.status, body: parsed };
}

/** The message id in a provider's JSON answer (`id`, `message_id`, `messageId`, `MessageId`, `ts`). */
export function messageIdOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  for (const k of ['message_id', 'messageId', 'MessageId', 'id', 'ts']) {
    const v = b[k];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return null;
}
