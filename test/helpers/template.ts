/** Shared test constants and the one migrated template every test file clones. */
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'admin-password-1';
export const ADMIN_TOKEN = 'static-admin-token';
export const PG_TEMPLATE_DB = 'svc_test_template';
export const PGLITE_TEMPLATE_PATH = 'test/.cache/pglite-template.tar.gz';

export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SECRET: 'test-secret-test-secret-test-secret',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** Replaces the database name of a postgres URL. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
