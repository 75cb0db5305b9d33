/** Shared test constants and the one migrated template every test file clones. The template is keyed by
 * a hash of what shapes it (migrations, bootstrap), so concurrent runs reuse it instead of rebuilding. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-password-1';
export const ADMIN_TOKEN = 'static-admin-token';

function templateHash(): string {
  const h = createHash('sha256');
  for (const f of readdirSync('migrations').sort()) h.update(readFileSync(`migrations/${f}`));
  h.update(readFileSync('core/bootstrap.ts'));
  // The derived schema (migrations/index.ts > derivedSchema) follows the channel registry.
  h.update(readFileSync('core/notify/channels/registry.ts'));
  h.update(readFileSync('test/helpers/global-setup.ts'));
  return h.digest('hex').slice(0, 10);
}

export const TEMPLATE_HASH = templateHash();
export const PG_TEMPLATE_DB = `svc_tpl_${TEMPLATE_HASH}`;
export const PGLITE_TEMPLATE_PATH = `test/.cache/pglite-template-${TEMPLATE_HASH}.tar.gz`;

export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SECRET: 'test-secret-test-secret-test-secret',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    // Off by default: in-process requests share one client IP, and many files log in more than the login
    // bucket allows. test/rate-limit*.test.ts turn it on.
    RATE_LIMITER_ENABLED: 'false',
    // Off for tests, for determinism only: PGlite runs in the test's own event loop, and files fire bursts of
    // parallel requests on a loaded CI machine, where the admission gate's wait budget (1 s) or the event-loop
    // delay backstop could answer one of them 503 depending on the machine's load. Where the limiter is the
    // subject it runs with the defaults: test/faults/admission.test.ts (real processes), test/server/pressure*.
    PRESSURE_LIMITER_ENABLED: 'false',
    ...extra,
  };
}

/** Replaces the database name of a postgres URL. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
