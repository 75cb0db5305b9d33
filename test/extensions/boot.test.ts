/** Extension loading at boot: EXTENSIONS_MUST_LOAD stops the start when a listed extension does not load, the
 * enabled flag is read at the next start only, and without EXTENSIONS_PATH nothing is registered. */
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../core/db/database.ts';
import { loadExtensions } from '../../core/extensions/host.ts';
import type { ExtensionLogger } from '../../core/extensions/api.ts';
import { createStandaloneApp } from '../../container/app.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_TOKEN } from '../helpers/template.ts';
import { createPrincipal } from '../helpers/principals.ts';

const quiet: ExtensionLogger = { info: () => {}, warn: () => {}, error: () => {} };
const opened: TestApp[] = [];
afterAll(async () => { for (const t of opened) await t.close(); });

async function boot(env: Record<string, string>) {
  const t = await createTestApp({ env: { EXTENSIONS_PATH: 'test/extensions', ...env }, extensions: true, extensionLog: quiet });
  opened.push(t);
  return t;
}

describe('EXTENSIONS_MUST_LOAD', () => {
  it('fails the start when a listed extension throws while loading', async () => {
    await expect(boot({ EXTENSIONS_MUST_LOAD: 'slugify,broken-load' })).rejects.toThrow(/EXTENSIONS_MUST_LOAD: "broken-load".*broken on purpose/);
  });

  it('fails the start for a name that is no extension', async () => {
    await expect(boot({ EXTENSIONS_MUST_LOAD: 'nope' })).rejects.toThrow(/"nope" is not an extension/);
  });

  it('starts when every listed extension loads (by folder or by id); others may still fail', async () => {
    const t = await boot({ EXTENSIONS_MUST_LOAD: 'slugify,greet' });
    const [greet] = await run<{ id: string }>(t.services.database.db, "select id from svc_extensions where folder = 'greet'");
    const again = await loadExtensions({ ...t.services, config: { ...t.services.config, extensions: { ...t.services.config.extensions, mustLoad: [greet.id] } } }, quiet);
    expect(again.records.find((r) => r.folder === 'greet')?.status).toBe('loaded');
    expect(t.extensions!.records.find((r) => r.folder === 'broken-load')?.status).toBe('failed');
  });
});

describe('the enabled flag', () => {
  it('takes effect at the next start, not at runtime', async () => {
    const t = await boot({});
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    expect((await t.app.request('/greet', { headers })).status).toBe(200);
    await run(t.services.database.db, "update svc_extensions set enabled = false where folder = 'greet'");
    // The running instance keeps what it loaded.
    expect((await t.app.request('/greet', { headers })).status).toBe(200);
    // The next start (same database) leaves it out.
    const next = await loadExtensions(t.services, quiet);
    expect(next.records.find((r) => r.folder === 'greet')).toMatchObject({ enabled: false, status: 'disabled' });
    expect(next.endpoints.map((e) => e.id)).not.toContain('greet');
    const restarted = createStandaloneApp(t.services, next);
    expect((await restarted.request('/greet', { headers })).status).toBe(404);
    // A disabled extension listed as must-load stops the start.
    const mustLoad = { ...t.services.config.extensions, mustLoad: ['greet'] };
    await expect(loadExtensions({ ...t.services, config: { ...t.services.config, extensions: mustLoad } }, quiet)).rejects.toThrow(/"greet".*disabled/);
  });

  it('registers each folder once, however often the service starts', async () => {
    const t = await boot({});
    await loadExtensions(t.services, quiet);
    const rows = await run<{ folder: string; n: number }>(t.services.database.db, 'select folder, count(*)::int as n from svc_extensions group by folder');
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(rows.map((r) => r.folder).sort()).toEqual(['broken-load', 'greet', 'recorder', 'slow', 'slugify', 'thrower']);
  });
});

describe('GET /extensions', () => {
  it('says what each extension is and what this process did with it; why one failed only to admins', async () => {
    const t = await boot({});
    await createPrincipal(t.services, { token: 'ext-reader', appAccess: true, permissions: [] });
    const list = (await t.req('GET', '/extensions')).body.data as any[];
    const byFolder = Object.fromEntries(list.map((e) => [e.folder, e]));
    expect(byFolder.greet).toMatchObject({ enabled: true, source: 'local', type: 'endpoint', status: 'loaded', error: null, bundle: null });
    expect(byFolder.slugify).toMatchObject({ type: 'hook', status: 'loaded' });
    expect(byFolder['broken-load']).toMatchObject({ type: 'hook', status: 'failed', error: expect.stringContaining('broken on purpose') });
    expect((await t.req('GET', `/extensions/${byFolder.greet.id}`)).body.data).toEqual(byFolder.greet);
    const seen = (await t.req('GET', '/extensions', undefined, { token: 'ext-reader' })).body.data as any[];
    expect(seen.find((e) => e.folder === 'broken-load')).toMatchObject({ status: 'failed' });
    expect(seen.every((e) => !('error' in e))).toBe(true);
    // A disabled one keeps its type and says so at the next start.
    await run(t.services.database.db, "update svc_extensions set enabled = false where folder = 'greet'");
    await loadExtensions(t.services, quiet);
    expect((await t.req('GET', `/extensions/${byFolder.greet.id}`)).body.data).toMatchObject({ enabled: false, type: 'endpoint', status: 'disabled' });
  });
});

describe('without extensions', () => {
  it('an EXTENSIONS_PATH that does not exist loads nothing and registers nothing', async () => {
    const t = await boot({ EXTENSIONS_PATH: 'test/no-such-dir' });
    expect(t.extensions!.records).toEqual([]);
    expect((await t.req('GET', '/extensions')).body.data).toEqual([]);
  });
});
