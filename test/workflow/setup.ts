/** Shared setup of the workflow tests: a `docs` collection (uuid keys chosen by the client, a unique slug, a
 * status field, a `reviewer` field for dynamic assignment), roles of reviewers with app permissions, workflows
 * built through the HTTP API, and versions created and submitted through /versions. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { run } from '../../core/db/database.ts';
import type { AppPermission } from '../../core/access/app-permissions.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

export const DOC = 'dddddddd-0000-4000-8000-000000000001';

const MODEL = `
create table docs (id uuid primary key, title varchar(255) not null, slug varchar(64), body text,
  status varchar(32) default 'draft', category varchar(32), priority integer default 0, reviewer uuid, reviewed boolean default false);
insert into svc_collections (collection, singleton, accountability) values ('docs', false, 'all');
insert into docs (id, title, slug, status, category) values ('${DOC}', 'Original title', 'original', 'published', 'news');
`;

export type App = TestApp;

export async function workflowApp(): Promise<TestApp> {
  const t = await createTestApp();
  await installDocs(t);
  return t;
}

/** The `docs` collection and its seeded row, in an app made elsewhere (test/realtime). */
export async function installDocs(t: TestApp): Promise<void> {
  await run(t.services.database.db, MODEL);
  await t.services.schema.invalidate();
}

export const q = <R = any>(t: TestApp, sql: string, params: unknown[] = []) => run<R>(t.services.database.db, sql, params);
export const code = (res: { body: any }) => res.body?.errors?.[0]?.extensions?.code;

const ITEM_ACTIONS = ['create', 'read', 'update'] as const;

/** A role with one policy holding `app` permissions (and item permissions on docs). */
export async function role(t: TestApp, name: string, app: AppPermission[]): Promise<{ role: string; policy: string }> {
  const id = randomUUID();
  const policy = randomUUID();
  await q(t, 'insert into svc_roles (id, name) values ($1, $2)', [id, name]);
  await q(t, 'insert into svc_policies (id, name, app_access) values ($1, $2, true)', [policy, name]);
  await q(t, 'insert into svc_access (id, role, policy) values ($1, $2, $3)', [randomUUID(), id, policy]);
  for (const action of ITEM_ACTIONS) {
    await q(t, "insert into svc_permissions (policy, collection, action, fields) values ($1, 'docs', $2, '[\"*\"]')", [policy, action]);
  }
  for (const perm of app) {
    const [module, action] = perm.split(':');
    await q(t, 'insert into svc_app_permissions (policy, module, action) values ($1, $2, $3)', [policy, module, action]);
  }
  await t.services.schema.invalidate();
  return { role: id, policy };
}

/** An active user of `roleId` whose static token is `token`. */
export async function user(t: TestApp, roleId: string, token: string): Promise<string> {
  const id = randomUUID();
  await q(t, "insert into svc_users (id, email, role, status, token) values ($1, $2, $3, 'active', $4)", [id, `${token}@example.com`, roleId, token]);
  await t.services.schema.invalidate();
  return id;
}

export interface StepSpec { key: string; type: string; [field: string]: unknown }
export type TransitionSpec = [from: string, to: string, trigger: string, condition?: Record<string, unknown>];

export interface Built { id: string; steps: Record<string, string> }

/** Creates (as admin) and activates a workflow on docs. */
export async function buildWorkflow(t: TestApp, spec: { name?: string; trigger_filter?: unknown; steps: StepSpec[]; transitions: TransitionSpec[]; activate?: boolean }): Promise<Built> {
  const created = await t.req('POST', '/workflows', { name: spec.name ?? 'Review', collection: 'docs', ...(spec.trigger_filter ? { trigger_filter: spec.trigger_filter } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.id as string;
  const steps: Record<string, string> = {};
  for (const [i, s] of spec.steps.entries()) {
    const res = await t.req('POST', `/workflows/${id}/steps`, { name: s.key, sort_order: i, ...s });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    steps[s.key] = res.body.data.id;
  }
  for (const [from, to, trigger, condition] of spec.transitions) {
    const res = await t.req('POST', `/workflows/${id}/transitions`, { from_step_id: steps[from], to_step_id: steps[to], trigger, ...(condition ? { condition } : {}) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  if (spec.activate !== false) {
    const res = await t.req('POST', `/workflows/${id}/activate`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return { id, steps };
}

/** A draft version of `item` (default: the seeded doc) created by `token`. */
export async function draft(t: TestApp, token: string, delta: Record<string, unknown>, item = DOC): Promise<string> {
  const res = await t.req('POST', '/versions', { key: `v-${randomUUID().slice(0, 8)}`, name: 'Draft', collection: 'docs', item, delta }, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as string;
}

export async function submit(t: TestApp, token: string, version: string) {
  return t.req('POST', `/versions/${version}/submit`, undefined, { token });
}

/** The instance started for a version (the newest). */
export async function instanceOf(t: TestApp, version: string): Promise<any> {
  const [row] = await q(t, 'select * from svc_workflow_instances where version_id = $1 order by started_at desc limit 1', [version]);
  return row;
}

export async function activeStep(t: TestApp, instance: string): Promise<any> {
  const [row] = await q(t, "select * from svc_workflow_instance_steps where instance_id = $1 and status = 'active'", [instance]);
  return row;
}

export async function doc(t: TestApp, id = DOC): Promise<any> {
  const [row] = await q(t, 'select * from docs where id = $1', [id]);
  return row;
}

export async function versionStatus(t: TestApp, version: string): Promise<string> {
  const [row] = await q<{ status: string }>(t, 'select status from svc_versions where id = $1', [version]);
  return row.status;
}

/** Every row of the workflow runtime tables, the versions and docs: to prove a refusal changed nothing. */
export async function snapshot(t: TestApp): Promise<string> {
  const parts = [];
  for (const table of ['svc_workflow_instances', 'svc_workflow_instance_steps', 'svc_workflow_actions', 'svc_versions', 'docs', 'svc_notifications']) {
    parts.push(await q(t, `select row_to_json(x)::text as r from ${table} x order by 1`));
  }
  const [activity] = await q(t, 'select count(*)::int as n from svc_activity');
  return JSON.stringify([parts, activity]);
}

export const step = (instance: string, stepId: string, action: string) => `/workflow-instances/${instance}/steps/${stepId}/${action}`;
