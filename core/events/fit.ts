/** Keeps action events within what a queue message can carry (SQS: 256 KiB). An event too large goes without its
 * payload (`payloadOmitted: true`; handlers read the rows by key), and when its keys alone are too many it is split
 * into several events over parts of the keys. Applied on every queue, so standalone sees what the container would. */
import type { EventMeta } from './bus.ts';

export const MAX_EVENT_BYTES = 200 * 1024;

export function fitEvent(meta: EventMeta, max = MAX_EVENT_BYTES): EventMeta[] {
  if (size(meta) <= max) return [meta];
  const { payload: _dropped, ...rest } = meta;
  const slim: EventMeta = { ...rest, payloadOmitted: true };
  const keys = slim.keys;
  if (size(slim) <= max || !keys || keys.length < 2) return [slim];
  const half = Math.ceil(keys.length / 2);
  const { key: _key, ...noKey } = slim;
  return [...fitEvent({ ...noKey, keys: keys.slice(0, half) }, max), ...fitEvent({ ...noKey, keys: keys.slice(half) }, max)];
}

function size(meta: EventMeta): number {
  try {
    return Buffer.byteLength(JSON.stringify(meta));
  } catch {
    return 0; // not JSON at all: the queue refuses it and the failure is logged there
  }
}
