/** core/events/fit.ts: action events stay within a queue message. */
import { describe, expect, it } from 'vitest';
import { fitEvent } from '../../core/events/fit.ts';

describe('fitEvent', () => {
  it('keeps an event that fits as it is', () => {
    const meta = { collection: 'a', keys: [1], key: 1, payload: { x: 1 } };
    expect(fitEvent(meta, 1000)).toEqual([meta]);
  });

  it('drops the payload of an event too large, keeping keys', () => {
    const out = fitEvent({ collection: 'a', keys: [1], key: 1, payload: { bio: 'x'.repeat(2000) } }, 1000);
    expect(out).toEqual([{ collection: 'a', keys: [1], key: 1, payloadOmitted: true }]);
  });

  it('splits the keys over several events when they alone are too many', () => {
    const keys = Array.from({ length: 500 }, (_, i) => `key-${i}`);
    const out = fitEvent({ collection: 'a', keys, payload: keys }, 1000);
    expect(out.length).toBeGreaterThan(1);
    expect(out.flatMap((m) => m.keys)).toEqual(keys);
    for (const m of out) {
      expect(Buffer.byteLength(JSON.stringify(m))).toBeLessThanOrEqual(1000);
      expect(m).toMatchObject({ collection: 'a', payloadOmitted: true });
      expect(m).not.toHaveProperty('payload');
    }
  });
});
