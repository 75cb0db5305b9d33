/** /schema: snapshot, diff and apply (schema as code, admin only), in Directus' shapes. A snapshot is JSON, or YAML
 * with `export=yaml`; a diff takes a snapshot as JSON or YAML. */
import type { Context, Hono } from 'hono';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { InvalidPayloadError, UnsupportedMediaTypeError } from '../../core/errors.ts';
import { requireAdmin, type SchemaServiceContext } from '../../core/schema/ddl/context.ts';
import { parseInclude, schemaApply, schemaDiff, schemaSnapshot } from '../../core/schema/snapshot/index.ts';
import { isJsonMediaType, readJson, readText } from '../http/body.ts';
import type { AppEnv } from '../http/env.ts';
import { schemaContext } from './schema-context.ts';

const YAML_TYPES = new Set(['application/yaml', 'application/x-yaml', 'text/yaml']);

function flag(c: Context<AppEnv>, name: string): boolean {
  const v = c.req.query(name);
  return v === '' || v === 'true' || v === '1';
}

/** A snapshot body: JSON, or YAML under a YAML type (both need a CORS preflight, as JSON does). */
async function readSnapshotBody(c: Context<AppEnv>, limit: number): Promise<unknown> {
  const type = c.req.header('content-type')?.split(';')[0].trim().toLowerCase();
  if (type && YAML_TYPES.has(type)) {
    try {
      return parseYaml(await readText(c, limit), { maxAliasCount: 100 });
    } catch (err) {
      throw new InvalidPayloadError(`Invalid YAML body: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (type !== undefined && !isJsonMediaType(type)) {
    throw new UnsupportedMediaTypeError('Send the snapshot as JSON (application/json) or YAML (application/yaml).');
  }
  return readJson(c, limit);
}

/** The caller's context, refused before a body is read unless an admin's: these bodies may be large. */
function adminContext(c: Context<AppEnv>): SchemaServiceContext {
  const ctx = schemaContext(c);
  requireAdmin(ctx);
  return ctx;
}

export function mountSchemaRoutes(app: Hono<AppEnv>): void {
  app.get('/schema/snapshot', async (c) => {
    const ctx = adminContext(c); // before the query is read: a caller who may not snapshot learns nothing of its rules
    const list = (name: string): string[] | undefined => c.req.query(name)?.split(',').map((s) => s.trim()).filter(Boolean);
    // include=roles,policies,... or include=all: configuration sections beside the schema; includeCollections /
    // excludeCollections (the SDK's options): part of the schema.
    const snapshot = await schemaSnapshot(ctx, {
      include: parseInclude(c.req.query('include')), includeCollections: list('includeCollections'), excludeCollections: list('excludeCollections'),
    });
    const format = c.req.query('export');
    if (format === undefined) return c.json({ data: snapshot });
    if (format !== 'json' && format !== 'yaml') throw new InvalidPayloadError('"export" must be json or yaml.');
    const day = new Date().toISOString().slice(0, 10);
    c.header('content-disposition', `attachment; filename="snapshot-${day}.${format}"`);
    if (format === 'json') return c.json(snapshot);
    c.header('content-type', 'application/yaml; charset=utf-8');
    return c.body(toYaml(snapshot, { aliasDuplicateObjects: false }));
  });

  app.post('/schema/diff', async (c) => {
    const ctx = adminContext(c);
    const result = await schemaDiff(ctx, await readSnapshotBody(c, ctx.config.schemaMaxPayloadSize), { force: flag(c, 'force') });
    return result ? c.json({ data: result }) : c.body(null, 204);
  });

  app.post('/schema/apply', async (c) => {
    const ctx = adminContext(c);
    const dryRun = flag(c, 'dry_run');
    const report = await schemaApply(ctx, await readJson(c, ctx.config.schemaMaxPayloadSize), { allowDestructive: flag(c, 'allow_destructive'), dryRun });
    return dryRun ? c.json({ data: report }) : c.body(null, 204);
  });
}
