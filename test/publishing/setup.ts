/** Shared setup of the scheduled-publishing tests: the versions tests' content model (posts: serial keys and a
 * status field; articles: client-chosen uuid keys and a status field; tags: neither, so its items cannot be
 * unpublished), principals with app permissions, and helpers for drafts and schedules. */
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { EDITOR_PERMISSIONS, principal, q, versionsApp } from '../versions/setup.ts';

export { code, principal, q, reason, EDITOR_PERMISSIONS } from '../versions/setup.ts';

export async function publishingApp(): Promise<TestApp> {
  const t = await versionsApp();
  await principal(t, 'editor', EDITOR_PERMISSIONS, ['versioning:view', 'versioning:create']);
  return t;
}

/** An ISO time `ms` from now. */
export const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
export const inHours = (h: number) => inMs(h * 3600_000);

let seq = 0;
/** A draft of `item` in `collection` by `token`; answers its id. */
export async function draft(t: TestApp, token: string | null, delta: Record<string, unknown>, collection = 'posts', item = '3'): Promise<string> {
  const res = await t.req('POST', '/versions', { key: `s-${++seq}`, collection, item, delta }, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

/** POST /schedules expecting success; answers the id. */
export async function schedule(t: TestApp, token: string | null, body: Record<string, unknown>): Promise<string> {
  const res = await t.req('POST', '/schedules', body, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export async function scheduleRow(t: TestApp, id: string): Promise<{ status: string; error: string | null; ran_at: Date | null; scheduled_by: string | null; scheduled_at: Date }> {
  const [row] = await q(t, 'select status, error, ran_at, scheduled_by, scheduled_at from svc_schedules where id = $1', [id]);
  return row;
}
